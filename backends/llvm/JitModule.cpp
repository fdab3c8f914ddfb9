// JitModule: compiled ops in this process through ORC's LLJIT (x86 hosts), from the lowered
// functions (create) or from an object compiled elsewhere with emit_packed_object (load_object).
//
// The module is generated with packed wrappers (`op.packed(void** args)`) so call() can invoke any
// op through one signature, optimized with the same pipeline as object files, and handed to LLJIT
// with the same CPU and features. texrt symbols are bound to the texrt linked into this binary;
// everything else (libm, extern functions) is looked up in `extra_symbols`, then in the process.
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <functional>
#include <mutex>
#include <unordered_map>

#include "backends/llvm/CodeGenCPU.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "backends/llvm/LLVMBackend.h"
#include "backends/llvm/OptimizeModule.h"
#include "ir/Diagnostics.h"
#include "runtime/texrt.h"

namespace texc {

namespace {

template <typename T>
T unwrap(llvm::Expected<T> value, const char* what) {
  if (!value) throw std::runtime_error(std::string(what) + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error error, const char* what) {
  if (error) throw std::runtime_error(std::string(what) + ": " + llvm::toString(std::move(error)));
}

std::vector<std::string> split_features(const std::string& features) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < features.size()) {
    size_t comma = features.find(',', start);
    if (comma == std::string::npos) comma = features.size();
    if (comma > start) out.push_back(features.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

/// The checks both ways into the JIT share: an x86 target on an x86-64 host.
void check_in_process_target(const CpuTargetOptions& target) {
  if (target.arch != "x86" && target.arch != "host")
    throw TargetOptionError("in-process execution supports only the x86 target, not '" + target.arch + "'");
  if (llvm::Triple(llvm::sys::getProcessTriple()).getArch() != llvm::Triple::x86_64)
    throw TargetOptionError("in-process execution of x86 code needs an x86-64 host");
}

}  // namespace

struct JitModule::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::mutex mutex;
  std::unordered_map<std::string, void*> packed_entry_points;  // op name -> op.packed, looked up once
  std::string reported_errors;  // what the execution session reported (guarded by mutex)
};

JitModule::JitModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JitModule::~JitModule() = default;

namespace {

/// A JIT for `tm`'s CPU with the runtime, `extra_symbols` and the process's symbols, errors
/// collected in `impl`; `add` puts the code in; then every op of `op_names` is linked (so that an
/// unresolved symbol is reported here) and its packed entry point kept.
void link_jit(llvm::TargetMachine& tm, const std::map<std::string, void*>& extra_symbols,
              const std::vector<std::string>& op_names,
              const std::function<llvm::Error(llvm::orc::LLJIT&)>& add, JitModule::Impl& impl) {
  llvm::orc::JITTargetMachineBuilder machine_builder(tm.getTargetTriple());
  machine_builder.setCPU(tm.getTargetCPU().str());
  machine_builder.addFeatures(split_features(tm.getTargetFeatureString().str()));
  machine_builder.setCodeGenOptLevel(tm.getOptLevel());
  auto jit = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(machine_builder)).create(),
                    "cannot create the JIT");

  llvm::orc::JITDylib& dylib = jit->getMainJITDylib();
  llvm::orc::MangleAndInterner mangle(jit->getExecutionSession(), jit->getDataLayout());
  llvm::orc::SymbolMap symbols;
  auto define = [&](const std::string& name, void* address) {
    symbols[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
  };
  define("texrt_parallel_for", reinterpret_cast<void*>(&texrt_parallel_for));
  define("texrt_alloc", reinterpret_cast<void*>(&texrt_alloc));
  define("texrt_free", reinterpret_cast<void*>(&texrt_free));
  for (const auto& [name, address] : extra_symbols) define(name, address);
  check(dylib.define(llvm::orc::absoluteSymbols(std::move(symbols))), "cannot define the runtime symbols");
  dylib.addGenerator(unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                                jit->getDataLayout().getGlobalPrefix()),
                            "cannot search the process for symbols"));

  // Errors reach the caller as exceptions (with what the session reported, e.g. the missing
  // symbols); do not also print them.
  JitModule::Impl* impl_ptr = &impl;
  jit->getExecutionSession().setErrorReporter([impl_ptr](llvm::Error error) {
    std::lock_guard<std::mutex> lock(impl_ptr->mutex);
    impl_ptr->reported_errors += llvm::toString(std::move(error)) + "\n";
  });
  check(add(*jit), "cannot add the code to the JIT");
  // Link now, so that an unresolved symbol (an extern function nobody provides) is reported here.
  for (const std::string& name : op_names) {
    auto address = jit->lookup(name + ".packed");
    if (!address) {
      std::string error = llvm::toString(address.takeError());
      std::lock_guard<std::mutex> lock(impl.mutex);
      throw std::runtime_error("cannot link op '" + name + "': " + impl.reported_errors + error);
    }
    impl.packed_entry_points[name] = address->toPtr<void*>();
  }
  impl.jit = std::move(jit);
}

}  // namespace

std::unique_ptr<JitModule> JitModule::create(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                                             const std::map<std::string, void*>& extra_symbols) {
  check_in_process_target(target);
  std::unique_ptr<llvm::TargetMachine> tm = make_cpu_target_machine(target);
  auto context = std::make_unique<llvm::LLVMContext>();
  CodeGenOptions options;
  options.packed_wrappers = true;
  std::unique_ptr<llvm::Module> module = codegen_cpu(funcs, *context, *tm, options);
  optimize_module(*module, *tm, target.opt_level);

  std::vector<std::string> op_names;
  for (const LoweredFunc& func : funcs) op_names.push_back(func.name);
  auto impl = std::make_unique<Impl>();
  link_jit(*tm, extra_symbols, op_names, [&](llvm::orc::LLJIT& jit) {
    return jit.addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)));
  }, *impl);
  return std::unique_ptr<JitModule>(new JitModule(std::move(impl)));
}

std::unique_ptr<JitModule> JitModule::load_object(const std::string& object, const std::vector<std::string>& op_names,
                                                  const CpuTargetOptions& target,
                                                  const std::map<std::string, void*>& extra_symbols) {
  check_in_process_target(target);
  std::unique_ptr<llvm::TargetMachine> tm = make_cpu_target_machine(target);
  auto impl = std::make_unique<Impl>();
  link_jit(*tm, extra_symbols, op_names, [&](llvm::orc::LLJIT& jit) {
    return jit.addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object, "shipped object"));
  }, *impl);
  return std::unique_ptr<JitModule>(new JitModule(std::move(impl)));
}

void* JitModule::lookup(const std::string& name) {
  auto address = impl_->jit->lookup(name);
  if (!address) {
    llvm::consumeError(address.takeError());
    return nullptr;
  }
  return address->toPtr<void*>();
}

void JitModule::call(const std::string& name, const std::vector<void*>& args) {
  void* packed;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->packed_entry_points.find(name);
    packed = it != impl_->packed_entry_points.end() ? it->second : lookup(name + ".packed");
    if (!packed) throw std::runtime_error("the JIT module has no op named '" + name + "'");
    impl_->packed_entry_points[name] = packed;
  }
  std::vector<void*> arg_array = args;
  reinterpret_cast<void (*)(void**)>(packed)(arg_array.data());
}

}  // namespace texc
