// ExternFunctions: where `texc run` finds the C functions that tensorized ops call
// (`intrinsic ... lower extern "symbol"`, language.md), from --extern-lib and --extern-src.
//
//   x86, interp   --extern-lib LIB.so is dlopen'ed; --extern-src FILE.c is compiled with $CC (default
//                 `cc`) `-O2 -fPIC -shared` into a temporary shared object, which is dlopen'ed.
//                 The JIT gets the symbols' addresses (JitModule's extra_symbols); the loop
//                 interpreter gets them registered in its extern registry, replacing its built-ins.
//   arm           --extern-src FILE.c is compiled with aarch64-linux-gnu-gcc `-O2 -c`; that object and
//                 every --extern-lib (an aarch64 .o or .a) are linked into the arm runner's driver.
//
// The loop interpreter calls a library function with every argument passed as a 64-bit integer
// (pointers from address_of, integers widened), which is how the x86-64 and aarch64 C calling
// conventions pass up to 6 (x86) or 8 (aarch64) pointer or integer arguments; an extern function
// with a floating-point argument or more than 6 arguments cannot be called from there.
//
// Errors: a C file that does not compile, a library that cannot be loaded, or an extern symbol that
// nothing provides is a OptionError (exit 1) naming the file or the op and symbol; a missing C
// compiler is an EnvironmentError (exit 2).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// An extern function as an op calls it: the symbol, the calling op, and per argument 'p' (a pointer,
/// address_of), 'i' (an integer or bool) or 'f' (a floating-point value).
struct ExternCall {
  std::string symbol;
  std::string op;
  std::string arg_kinds;
};

/// The extern functions `funcs` call, one per symbol (its first call).
std::vector<ExternCall> extern_calls(const std::vector<LoweredFunc>& funcs);

class ExternFunctions {
 public:
  /// Loads or compiles the libraries of opts.extern_libs and opts.extern_srcs for opts.target.
  explicit ExternFunctions(const CompileOptions& opts);
  ~ExternFunctions();
  ExternFunctions(const ExternFunctions&) = delete;
  ExternFunctions& operator=(const ExternFunctions&) = delete;

  /// x86: the address of every extern symbol `func` calls, from the libraries or else from this
  /// process (the C library); throws OptionError for a symbol nobody provides.
  std::map<std::string, void*> jit_symbols(const LoweredFunc& func) const;
  /// interp: registers every extern symbol `func` calls that a library provides with the loop
  /// interpreter (others keep the interpreter's built-in implementation, if it has one).
  void register_with_loop_interpreter(const LoweredFunc& func) const;
  /// arm: the objects and archives to link into the driver; throws OptionError if `func`
  /// calls an extern symbol and there are none (unless the C library has the symbol).
  std::vector<std::string> arm_link_inputs(const LoweredFunc& func) const;

 private:
  void* find_in_libraries(const std::string& symbol) const;

  bool aarch64_;  // the target's code runs as an aarch64 program (arm): sources are cross-compiled
  std::vector<void*> handles_;          // dlopen'ed libraries (x86, interp)
  std::vector<std::string> link_inputs_;  // arm
  std::string work_dir_;                // compiled sources; removed by the destructor
};

}  // namespace texc
