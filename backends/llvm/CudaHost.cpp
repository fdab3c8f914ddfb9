// write_cuda_host_object (CudaBackend.h): the host functions that launch the cuda kernels.
//
//   @texc.cuda.ptx = private constant [N x i8] c"<the PTX>\00"
//   @texc.cuda.module = internal global ptr null        ; the CUmodule, loaded at the first launch
//   define i32 @op(ptr %A, ptr %B, ptr %C) {           ; device pointers
//     %slots = [A, B, C]; %args = [&slots[0], &slots[1], &slots[2]]   (cuLaunchKernel's kernelParams)
//     ret texrt_cuda_launch(@texc.cuda.module, @texc.cuda.ptx, @op.cuda.function, "op",
//                           {grid x, y, z}, {block x, y, z}, dynamic shared bytes, %args)
//   }
// The host entry of an op compiled as a graph of kernels (ir/KernelCalls.h) launches its kernels in
// order without waiting between them (each kernel's internal `<kernel>.async`, through
// texrt_cuda_launch_async), then waits once (texrt_cuda_synchronize); its intermediates are in the
// calling thread's workspace (texrt_cuda_thread_workspace, KernelCallEntry.h); and
// `<op>_with_workspace` on the caller's device workspace (ir/CallerWorkspace.h).
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <array>
#include <set>

#include "backends/llvm/CodeGenNVPTX.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "backends/llvm/CudaBackend.h"
#include "backends/llvm/KernelCallEntry.h"
#include "backends/llvm/ObjectFile.h"
#include "backends/llvm/LLVMBackend.h"
#include "ir/CallerWorkspace.h"
#include "ir/Diagnostics.h"
#include "ir/KernelCalls.h"
#include "ir/SymbolNames.h"

namespace texc {

namespace {

/// The grid ({blockIdx.x, .y, .z} extents) or block ({threadIdx...}) of a launch; 1 where not bound.
std::array<uint32_t, 3> launch_dims(const LoweredFunc& func, const std::string& prefix) {
  std::array<uint32_t, 3> dims{1, 1, 1};
  const char* axes = "xyz";
  for (const auto& extent : func.launch.thread_extents) {
    for (int a = 0; a < 3; ++a) {
      if (extent.tag != prefix + "." + axes[a]) continue;
      int64_t v;
      TEXC_CHECK(is_const_int(extent.extent, &v) && v >= 1 && v <= int64_t(UINT32_MAX))
          << "launch extent of " << extent.tag << " in kernel " << func.name << " is not a constant from 1 up";
      dims[size_t(a)] = uint32_t(v);
    }
  }
  return dims;
}

/// The bytes of argument `arg` of kernel `func` (a constant shape).
uint64_t argument_bytes(const LoweredFunc& func, const Buffer& arg) {
  int64_t elements = 1;
  for (const Expr& e : arg->shape) {
    int64_t v = 0;
    TEXC_CHECK(is_const_int(e, &v) && v >= 0) << "output " << arg->name << " of kernel " << func.name
                                              << " zeroed before the launch has no constant size";
    elements *= v;
  }
  return uint64_t(elements) * uint64_t(arg->dtype.bytes());
}

}  // namespace

CudaLaunchConfig cuda_launch_config(const LoweredFunc& func) {
  CudaLaunchConfig config;
  config.grid = launch_dims(func, "blockIdx");
  config.block = launch_dims(func, "threadIdx");
  int64_t shared_bytes = func.launch.dynamic_shared_bytes + kernel_shared_bytes(func);
  TEXC_CHECK(func.launch.dynamic_shared_bytes >= 0 && shared_bytes <= int64_t(UINT32_MAX))
      << "dynamic shared bytes of kernel " << func.name;
  config.shared_bytes = uint32_t(shared_bytes);
  for (const std::string& output : func.launch.zeroed_outputs)
    for (size_t i = 0; i < func.args.size(); ++i)
      if (func.args[i]->name == output) config.zeroed_args.push_back({uint32_t(i), argument_bytes(func, func.args[i])});
  return config;
}

namespace {

/// In host function `fn` (its arguments named), before the launch: the outputs that the kernel's
/// blocks add into atomically (split-K, LaunchAttributes::zeroed_outputs) zeroed on the stream
/// (texrt_cuda_zero_async), each failure returned.
void zero_outputs_before_launch(llvm::Module& module, llvm::IRBuilder<>& b, const LoweredFunc& func, llvm::Function* fn,
                                llvm::Constant* kernel_name) {
  if (func.launch.zeroed_outputs.empty()) return;
  llvm::LLVMContext& context = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);
  llvm::FunctionCallee zero = module.getOrInsertFunction(
      "texrt_cuda_zero_async", llvm::FunctionType::get(b.getInt32Ty(), {ptr, b.getInt64Ty(), ptr, ptr}, false));
  for (const std::string& output : func.launch.zeroed_outputs)
    for (size_t i = 0; i < func.args.size(); ++i) {
      if (func.args[i]->name != output) continue;
      llvm::Constant* label = b.CreateGlobalStringPtr(output, func.name + ".cuda.zeroed." + output, 0, &module);
      llvm::Value* code =
          b.CreateCall(zero, {fn->getArg(unsigned(i)), b.getInt64(argument_bytes(func, func.args[i])), label, kernel_name});
      auto* failed = llvm::BasicBlock::Create(context, "zero_failed", fn);
      auto* next = llvm::BasicBlock::Create(context, "zeroed", fn);
      b.CreateCondBr(b.CreateICmpEQ(code, b.getInt32(0)), next, failed);
      b.SetInsertPoint(failed);
      b.CreateRet(code);
      b.SetInsertPoint(next);
    }
}

/// The host function `symbol` (with `linkage`) that launches kernel `func` through `launch`
/// (texrt_cuda_launch, or texrt_cuda_launch_async for the entries' calls), the kernel looked up once
/// into `function_cache`.
void add_host_function(llvm::Module& module, llvm::IRBuilder<>& b, const LoweredFunc& func, llvm::GlobalVariable* ptx,
                       llvm::GlobalVariable* module_cache, llvm::GlobalVariable* function_cache,
                       llvm::FunctionCallee launch, const std::string& symbol, llvm::GlobalValue::LinkageTypes linkage) {
  llvm::LLVMContext& context = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);
  std::vector<llvm::Type*> params(func.args.size(), ptr);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), params, false), linkage, symbol, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));
  llvm::Constant* name = b.CreateGlobalStringPtr(op_symbol(func.name), func.name + ".cuda.name", 0, &module);
  size_t n = std::max<size_t>(func.args.size(), 1);
  auto* array_type = llvm::ArrayType::get(ptr, n);
  llvm::Value* slots = b.CreateAlloca(array_type, nullptr, "slots");
  llvm::Value* args = b.CreateAlloca(array_type, nullptr, "args");
  for (size_t i = 0; i < func.args.size(); ++i) {
    fn->getArg(unsigned(i))->setName(func.args[i]->name);
    llvm::Value* slot = b.CreateConstInBoundsGEP2_64(array_type, slots, 0, i);
    b.CreateStore(fn->getArg(unsigned(i)), slot);
    b.CreateStore(slot, b.CreateConstInBoundsGEP2_64(array_type, args, 0, i));
  }
  auto dims_array = [&](const std::array<uint32_t, 3>& dims, const char* label) {
    auto* type = llvm::ArrayType::get(b.getInt32Ty(), 3);
    llvm::Value* array = b.CreateAlloca(type, nullptr, label);
    for (size_t a = 0; a < 3; ++a) b.CreateStore(b.getInt32(dims[a]), b.CreateConstInBoundsGEP2_64(type, array, 0, a));
    return array;
  };
  zero_outputs_before_launch(module, b, func, fn, name);
  CudaLaunchConfig config = cuda_launch_config(func);
  llvm::Value* grid = dims_array(config.grid, "grid");
  llvm::Value* block = dims_array(config.block, "block");
  llvm::Value* shared = b.getInt32(config.shared_bytes);
  b.CreateRet(b.CreateCall(launch, {module_cache, ptx, function_cache, name, grid, block, shared, args}));
}

/// The runtime of the host entry `entry` of a graph of kernels (KernelCallEntry.h): its workspace is
/// the calling thread's device workspace (texrt_cuda_thread_workspace: allocated at the thread's
/// first call, kept for the next ones, so nothing is released after the calls); it calls each
/// kernel's `<kernel>.async`, which launches it without waiting (the kernels queue on the default
/// stream), and then waits for them all once (texrt_cuda_synchronize).
EntryRuntime device_runtime(llvm::Module& module, llvm::IRBuilder<>& b, const LoweredFunc& entry) {
  llvm::LLVMContext& context = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  llvm::FunctionCallee workspace_of_thread = module.getOrInsertFunction(
      "texrt_cuda_thread_workspace", llvm::FunctionType::get(i32, {ptr, llvm::Type::getInt64Ty(context)}, false));
  llvm::FunctionCallee synchronize =
      module.getOrInsertFunction("texrt_cuda_synchronize", llvm::FunctionType::get(i32, {ptr}, false));
  llvm::Constant* op_name = b.CreateGlobalStringPtr(op_symbol(entry.name), entry.name + ".cuda.op", 0, &module);
  EntryRuntime runtime;
  runtime.allocate = [workspace_of_thread](llvm::IRBuilder<>& b, llvm::Value* slot, uint64_t bytes) -> llvm::Value* {
    return b.CreateCall(workspace_of_thread, {slot, b.getInt64(bytes)});
  };
  runtime.release = [](llvm::IRBuilder<>& b, llvm::Value*) -> llvm::Value* { return b.getInt32(0); };
  llvm::Module* m = &module;
  runtime.callee = [m](const std::string& kernel) { return m->getFunction(op_symbol(kernel) + ".async"); };
  runtime.finish = [synchronize, op_name](llvm::IRBuilder<>& b) -> llvm::Value* {
    return b.CreateCall(synchronize, {op_name});
  };
  return runtime;
}

}  // namespace

void write_cuda_host_object(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target,
                            const std::string& path) {
  std::vector<LoweredFunc> kernels;
  for (const LoweredFunc& func : funcs) {
    TEXC_CHECK(func.kind == FunctionKind::Device || kernel_calls(func))
        << "host function " << func.name << " given to the cuda backend";
    if (func.kind == FunctionKind::Device) kernels.push_back(func);
  }
  std::string ptx_text = emit_ptx(kernels, target);

  CpuTargetOptions host;  // the machine texc runs on, generic CPU: the glue runs on any of its kind
  bool arm_host = llvm::Triple(llvm::sys::getProcessTriple()).isAArch64();
  host.arch = arm_host ? "arm" : "x86";
  host.mcpu = arm_host ? "generic" : "x86-64";
  std::unique_ptr<llvm::TargetMachine> tm = make_cpu_target_machine(host);
  llvm::LLVMContext context;
  llvm::Module module(funcs.empty() ? "texc_cuda" : funcs[0].name + "_cuda", context);
  module.setTargetTriple(tm->getTargetTriple().str());
  module.setDataLayout(tm->createDataLayout());
  llvm::IRBuilder<> b(context);
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);

  llvm::Constant* ptx_data = llvm::ConstantDataArray::getString(context, ptx_text, true);
  auto* ptx = new llvm::GlobalVariable(module, ptx_data->getType(), true, llvm::GlobalValue::PrivateLinkage, ptx_data,
                                       "texc.cuda.ptx");
  auto* module_cache = new llvm::GlobalVariable(module, ptr, false, llvm::GlobalValue::InternalLinkage,
                                                llvm::ConstantPointerNull::get(ptr), "texc.cuda.module");
  auto* launch_type = llvm::FunctionType::get(
      b.getInt32Ty(), {ptr, ptr, ptr, ptr, ptr, ptr, b.getInt32Ty(), ptr}, false);
  llvm::FunctionCallee launch = module.getOrInsertFunction("texrt_cuda_launch", launch_type);
  llvm::FunctionCallee launch_async = module.getOrInsertFunction("texrt_cuda_launch_async", launch_type);
  std::set<std::string> called_by_entries;
  for (const LoweredFunc& func : funcs)
    if (std::optional<KernelCalls> calls = kernel_calls(func))
      for (const KernelCall& call : calls->calls) called_by_entries.insert(call.kernel);
  for (const LoweredFunc& func : kernels) {
    auto* function_cache = new llvm::GlobalVariable(module, ptr, false, llvm::GlobalValue::InternalLinkage,
                                                    llvm::ConstantPointerNull::get(ptr), func.name + ".cuda.function");
    add_host_function(module, b, func, ptx, module_cache, function_cache, launch, op_symbol(func.name),
                      llvm::GlobalValue::ExternalLinkage);
    if (called_by_entries.count(func.name))
      add_host_function(module, b, func, ptx, module_cache, function_cache, launch_async,
                        op_symbol(func.name) + ".async", llvm::GlobalValue::InternalLinkage);
  }
  for (const LoweredFunc& func : funcs)
    if (std::optional<KernelCalls> calls = kernel_calls(func)) {
      EntryRuntime runtime = device_runtime(module, b, func);
      add_kernel_call_entry(module, b, func, *calls, false, runtime);
      if (caller_workspace_entry(func)) add_kernel_call_entry(module, b, func, *calls, true, runtime);
    }

  std::string errors;
  llvm::raw_string_ostream error_stream(errors);
  TEXC_CHECK(!llvm::verifyModule(module, &error_stream)) << "invalid cuda host module:\n" << errors;

  write_module_file(module, *tm, path, llvm::CodeGenFileType::ObjectFile);
}

}  // namespace texc
