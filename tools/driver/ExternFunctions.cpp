#include "tools/driver/ExternFunctions.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>

#include "backends/interp/ExternRegistry.h"
#include "ir/IRVisitor.h"
#include "ir/Target.h"
#include "ir/Intrinsics.h"
#include "tools/driver/EnvironmentError.h"

namespace texc {

namespace fs = std::filesystem;

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs `command` (through the shell) and returns its exit status; its stdout and stderr in *output.
int run_capturing(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output->append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool program_exists(const std::string& program) {
  std::string ignored;
  return run_capturing("command -v " + shell_quote(program), &ignored) == 0;
}

/// Compiles `source` with `compiler` and `flags` into `output`.
void compile_c(const std::string& compiler, const std::string& flags, const std::string& source,
               const std::string& output) {
  if (!program_exists(compiler))
    throw EnvironmentError("--extern-src " + source + ": the C compiler '" + compiler + "' is not on PATH");
  if (!fs::exists(source)) throw OptionError("--extern-src: cannot open file '" + source + "'");
  std::string log;
  std::string command = shell_quote(compiler) + " " + flags + " -o " + shell_quote(output) + " " + shell_quote(source);
  if (run_capturing(command, &log) != 0)
    throw OptionError("--extern-src " + source + " does not compile (" + command + "):\n" + log);
}

/// Calls `fn` with every argument passed in a 64-bit integer register (see the file comment).
int64_t call_with_integer_registers(void* fn, const std::vector<int64_t>& a) {
  using I = int64_t;
  switch (a.size()) {
    case 0: return reinterpret_cast<I (*)()>(fn)();
    case 1: return reinterpret_cast<I (*)(I)>(fn)(a[0]);
    case 2: return reinterpret_cast<I (*)(I, I)>(fn)(a[0], a[1]);
    case 3: return reinterpret_cast<I (*)(I, I, I)>(fn)(a[0], a[1], a[2]);
    case 4: return reinterpret_cast<I (*)(I, I, I, I)>(fn)(a[0], a[1], a[2], a[3]);
    case 5: return reinterpret_cast<I (*)(I, I, I, I, I)>(fn)(a[0], a[1], a[2], a[3], a[4]);
    case 6: return reinterpret_cast<I (*)(I, I, I, I, I, I)>(fn)(a[0], a[1], a[2], a[3], a[4], a[5]);
  }
  return 0;  // rejected when registering
}

class ExternCallCollector : public IRVisitor {
 public:
  ExternCallCollector(const std::string& op, std::vector<ExternCall>* calls) : op_(op), calls_(calls) {}

 protected:
  using IRVisitor::visit;
  void visit(const Call* call) override {
    // `lower llvm` intrinsics ("llvm.x86...") are instructions the backend emits, not C functions.
    if (call->call_kind == CallKind::Extern && call->name.rfind("llvm.", 0) != 0) {
      bool known = false;
      for (const ExternCall& c : *calls_) known = known || c.symbol == call->name;
      if (!known) {
        ExternCall c{call->name, op_, ""};
        for (const Expr& a : call->args) {
          const Call* ac = a->as<Call>();
          bool is_address = is_intrinsic_call(ac, Intrinsic::AddressOf);
          c.arg_kinds += is_address ? 'p' : a->type.is_float() ? 'f' : 'i';
        }
        calls_->push_back(c);
      }
    }
    IRVisitor::visit(call);
  }

 private:
  std::string op_;
  std::vector<ExternCall>* calls_;
};

std::string nobody_provides(const ExternCall& call) {
  return "op '" + call.op + "' calls the extern function '" + call.symbol +
         "', which no library provides: pass --extern-lib LIB or --extern-src FILE.c";
}

}  // namespace

std::vector<ExternCall> extern_calls(const std::vector<LoweredFunc>& funcs) {
  std::vector<ExternCall> calls;
  for (const LoweredFunc& f : funcs) {
    ExternCallCollector collector(f.name, &calls);
    collector.visit_stmt(f.body);
  }
  return calls;
}

ExternFunctions::ExternFunctions(const CompileOptions& opts) : aarch64_(llvm_cpu_arch_of(opts.target) == "arm") {
  if (opts.extern_libs.empty() && opts.extern_srcs.empty()) return;
  if (!opts.extern_srcs.empty()) {
    std::string pattern = (fs::temp_directory_path() / "texc-extern-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw EnvironmentError("cannot create a temporary directory " + pattern);
    work_dir_ = pattern;
  }
  // A failure leaves nothing behind: the destructor does not run for a constructor that throws.
  try {
    for (size_t i = 0; i < opts.extern_srcs.size(); ++i) {
      const std::string& source = opts.extern_srcs[i];
      std::string stem = fs::path(source).stem().string() + "." + std::to_string(i);
      if (aarch64_) {
        std::string object = (fs::path(work_dir_) / (stem + ".o")).string();
        compile_c("aarch64-linux-gnu-gcc", "-O2 -c", source, object);
        link_inputs_.push_back(object);
      } else {
        const char* cc = std::getenv("CC");
        std::string library = (fs::path(work_dir_) / ("lib" + stem + ".so")).string();
        compile_c(cc && *cc ? cc : "cc", "-O2 -fPIC -shared", source, library);
        void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) throw OptionError("--extern-src " + source + ": cannot load the compiled library: " + dlerror());
        handles_.push_back(handle);
      }
    }
    for (const std::string& library : opts.extern_libs) {
      if (!fs::exists(library)) throw OptionError("--extern-lib: cannot open file '" + library + "'");
      if (aarch64_) {
        link_inputs_.push_back(fs::absolute(library).string());
        continue;
      }
      // dlopen searches the library path for a name without '/': name the file itself.
      std::string path = fs::absolute(library).string();
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) throw OptionError("--extern-lib: cannot load '" + library + "': " + dlerror());
      handles_.push_back(handle);
    }
  } catch (...) {
    std::error_code ignored;
    if (!work_dir_.empty()) fs::remove_all(work_dir_, ignored);
    throw;
  }
}

ExternFunctions::~ExternFunctions() {
  // The libraries stay loaded: JIT-compiled code and the interpreter's registry may still point
  // into them until the process exits. Their files can go.
  std::error_code ignored;
  if (!work_dir_.empty()) fs::remove_all(work_dir_, ignored);
}

void* ExternFunctions::find_in_libraries(const std::string& symbol) const {
  for (void* handle : handles_)
    if (void* address = dlsym(handle, symbol.c_str())) return address;
  return nullptr;
}

std::map<std::string, void*> ExternFunctions::jit_symbols(const LoweredFunc& func) const {
  std::map<std::string, void*> symbols;
  for (const ExternCall& call : extern_calls({func})) {
    void* address = find_in_libraries(call.symbol);
    if (!address) address = dlsym(RTLD_DEFAULT, call.symbol.c_str());
    if (!address) throw OptionError(nobody_provides(call));
    symbols[call.symbol] = address;
  }
  return symbols;
}

void ExternFunctions::register_with_loop_interpreter(const LoweredFunc& func) const {
  for (const ExternCall& call : extern_calls({func})) {
    void* address = find_in_libraries(call.symbol);
    if (!address) continue;
    if (call.arg_kinds.find('f') != std::string::npos || call.arg_kinds.size() > 6)
      throw OptionError("op '" + call.op + "' calls the extern function '" + call.symbol + "' with " +
                             (call.arg_kinds.size() > 6 ? "more than 6 arguments"
                                                        : std::string("a floating-point argument")) +
                             ", which the loop interpreter cannot pass to a library function");
    register_extern(call.symbol, [address](const std::vector<ExternArg>& args) {
      std::vector<int64_t> registers;
      for (const ExternArg& a : args) registers.push_back(a.pointer ? int64_t(reinterpret_cast<intptr_t>(a.pointer)) : a.i);
      return call_with_integer_registers(address, registers);
    });
  }
}

std::vector<std::string> ExternFunctions::arm_link_inputs(const LoweredFunc& func) const {
  if (link_inputs_.empty())
    for (const ExternCall& call : extern_calls({func}))
      if (!dlsym(RTLD_DEFAULT, call.symbol.c_str())) throw OptionError(nobody_provides(call));
  return link_inputs_;
}

}  // namespace texc
