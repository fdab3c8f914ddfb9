// The LLVM CPU backend's public API: lowered funcs -> LLVM IR, object files, assembly, a C header,
// and in-process (JIT) execution on x86.
//
// Every entry point takes the ops of one compilation unit and produces one LLVM module with one
// external function per op, with the C signature `void op(const T* in..., T* out...)` (arguments
// in LoweredFunc::args order). The module references the runtime (texrt_parallel_for, texrt_alloc,
// texrt_free; runtime/texrt.h) but defines none of it: link the objects with libtexrt.a.
//
// Argument pointers need only the element type's natural alignment and must point to distinct,
// non-overlapping buffers of the declared sizes. Integer division by zero yields 0 (and % 0 gives 0).
//
// This header includes nothing from LLVM.
#pragma once
#include <time.h>

#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/Function.h"

namespace texc {

struct CpuTargetOptions {
  std::string arch = "x86";  // "x86" (x86-64 Linux) or "arm" (aarch64-linux-gnu)
  /// CPU name; empty: the host CPU on x86 (with the host's features), "generic" on arm.
  std::string mcpu;
  /// Extra LLVM feature string ("+avx2,-avx512f"); appended to the defaults.
  std::string mattr;
  int opt_level = 3;  // 0..3
};

/// A target option the user got wrong (unknown arch or CPU): a user error (texc exits 1).
class TargetOptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How long one phase took: wall-clock and CPU time of the compiling thread, in milliseconds (on a
/// loaded machine the wall time includes waiting for a CPU; the CPU time does not).
struct PhaseTime {
  double wall_ms = 0;
  double cpu_ms = 0;
};
/// Measures one phase: started on construction, read by elapsed().
class PhaseClock {
 public:
  PhaseClock() : wall_(std::chrono::steady_clock::now()), cpu_ms_(thread_cpu_ms()) {}
  PhaseTime elapsed() const {
    return {std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_).count(),
            thread_cpu_ms() - cpu_ms_};
  }

 private:
  static double thread_cpu_ms() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
  }
  std::chrono::steady_clock::time_point wall_;
  double cpu_ms_;
};
/// The phases of one compilation (texc --time-compile): loop AST to LLVM IR, the optimization
/// pipeline, and machine-code emission.
struct CpuCompileTimes {
  PhaseTime codegen;
  PhaseTime optimize;
  PhaseTime emit;
};

/// Throws TargetOptionError unless `target` names a known arch and CPU (a cheap check before compiling).
void check_cpu_target(const CpuTargetOptions& target);

/// The optimized module as textual LLVM IR.
std::string emit_llvm_ir(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target);
/// The unoptimized module as generated (for debugging code generation).
std::string emit_llvm_ir_unoptimized(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target);
/// An ELF relocatable object (position-independent code) at `path`; the phase times in `times` if given.
void write_object(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target, const std::string& path,
                  CpuCompileTimes* times = nullptr);
/// The ops and their packed wrappers (`op.packed(void** args)`, one pointer per argument), as an
/// ELF relocatable object in memory: what JitModule::create links, compiled once and shipped
/// (`texc tune --compile-on tuner` sends it to a farm's worker, which loads it with
/// JitModule::load_object).
std::string emit_packed_object(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target);
/// Target assembly at `path`.
void write_assembly(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target, const std::string& path);
/// The same assembly as a string.
std::string emit_assembly(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target);

/// C declarations of every op (inputs `const`), each with its arguments' shapes and element types
/// documented in a comment and defined as macros (OP_ARG_RANK, OP_ARG_DIM0.., OP_ARG_SIZE,
/// OP_ARG_SHAPE). Usable from C and C++.
std::string emit_c_header(const std::vector<LoweredFunc>& funcs);
/// The C spelling of an element type in the header and drivers ("float", "int8_t", "bool", f16 and
/// bf16 as "uint16_t").
std::string c_type_name(Type element_type);

/// Compiled ops living in this process (x86 on an x86 host). Runtime symbols resolve to the texrt
/// linked into the process, other symbols (libm, extern intrinsics) to the process's symbols or to
/// `extra_symbols`.
class JitModule {
 public:
  static std::unique_ptr<JitModule> create(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                                           const std::map<std::string, void*>& extra_symbols = {});
  /// Links `object` (emit_packed_object's bytes, compiled for `target` elsewhere) into this process
  /// as create() links a module: the runtime, `extra_symbols`, then the process's symbols; every op
  /// of `op_names` must be defined (op.packed). Throws std::runtime_error for an object that is not
  /// one or does not link.
  static std::unique_ptr<JitModule> load_object(const std::string& object, const std::vector<std::string>& op_names,
                                                const CpuTargetOptions& target,
                                                const std::map<std::string, void*>& extra_symbols = {});
  ~JitModule();
  /// The address of op `name` (or of any symbol the module defines); null if there is none.
  void* lookup(const std::string& name);

  /// Calls op `name` with one pointer per argument (inputs then outputs); throws if there is no such op.
  void call(const std::string& name, const std::vector<void*>& args);

  struct Impl;  // JitModule.cpp's

 private:
  explicit JitModule(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace texc
