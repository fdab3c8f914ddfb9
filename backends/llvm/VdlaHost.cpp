// write_vdla_host_object (VdlaHostObject.h): the host functions by codegen_cpu, then a function per
// VDLA kernel and the entries added to the same module before it is optimized.
//
//   @op_k1.vdla.program = private constant [N x i8] c"<the .vdla file>"
//   @op_k1.vdla.cache = internal global ptr null          ; the loaded program, at the first call
//   define i32 @op_k1(ptr %W1b, ptr %Xb, ptr %C1) {
//     %args = [%W1b, %Xb, %C1]
//     ret texrt_vdla_run_embedded(@op_k1.vdla.cache, @op_k1.vdla.program, N, "op_k1", %args)
//   }
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/llvm/CodeGenCPU.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "backends/llvm/KernelCallEntry.h"
#include "backends/llvm/ObjectFile.h"
#include "backends/llvm/OptimizeModule.h"
#include "backends/llvm/VdlaHostObject.h"
#include "ir/CallerWorkspace.h"
#include "ir/Diagnostics.h"
#include "ir/SymbolNames.h"

namespace texc {

namespace {

void add_vdla_kernel(llvm::Module& module, llvm::IRBuilder<>& b, const VdlaKernelProgram& vdla,
                     llvm::FunctionCallee run_embedded) {
  llvm::LLVMContext& context = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);
  const LoweredFunc& func = vdla.kernel;
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getInt32Ty(), std::vector<llvm::Type*>(func.args.size(), ptr), false),
      llvm::GlobalValue::ExternalLinkage, op_symbol(func.name), module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));
  llvm::Constant* bytes = llvm::ConstantDataArray::get(context, llvm::ArrayRef<uint8_t>(vdla.program));
  auto* program = new llvm::GlobalVariable(module, bytes->getType(), true, llvm::GlobalValue::PrivateLinkage, bytes,
                                           func.name + ".vdla.program");
  auto* cache = new llvm::GlobalVariable(module, ptr, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::ConstantPointerNull::get(ptr), func.name + ".vdla.cache");
  llvm::Constant* name = b.CreateGlobalStringPtr(func.name, func.name + ".vdla.name", 0, &module);
  auto* array_type = llvm::ArrayType::get(ptr, std::max<size_t>(func.args.size(), 1));
  llvm::Value* args = b.CreateAlloca(array_type, nullptr, "args");
  for (size_t i = 0; i < func.args.size(); ++i) {
    fn->getArg(unsigned(i))->setName(func.args[i]->name);
    b.CreateStore(fn->getArg(unsigned(i)), b.CreateConstInBoundsGEP2_64(array_type, args, 0, i));
  }
  b.CreateRet(b.CreateCall(run_embedded, {cache, program, b.getInt64(vdla.program.size()), name, args}));
}

/// The entries' workspace in host memory: texrt_alloc (which never fails: it aborts when memory is
/// exhausted, runtime/texrt.h) and texrt_free.
EntryRuntime host_workspace(llvm::Module& module) {
  llvm::LLVMContext& context = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);
  llvm::FunctionCallee alloc =
      module.getOrInsertFunction("texrt_alloc", llvm::FunctionType::get(ptr, {llvm::Type::getInt64Ty(context)}, false));
  llvm::FunctionCallee free =
      module.getOrInsertFunction("texrt_free", llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr}, false));
  EntryRuntime workspace;
  workspace.allocate = [alloc](llvm::IRBuilder<>& b, llvm::Value* slot, uint64_t bytes) -> llvm::Value* {
    b.CreateStore(b.CreateCall(alloc, {b.getInt64(bytes)}), slot);
    return b.getInt32(0);
  };
  workspace.release = [free](llvm::IRBuilder<>& b, llvm::Value* workspace) -> llvm::Value* {
    b.CreateCall(free, {workspace});
    return b.getInt32(0);
  };
  return workspace;
}

}  // namespace

void write_vdla_host_object(const std::vector<LoweredFunc>& host_funcs, const std::vector<VdlaKernelProgram>& programs,
                            const CpuTargetOptions& cpu, const std::string& path, CpuCompileTimes* times) {
  std::vector<LoweredFunc> loops;  // compiled as on the CPU target
  for (const LoweredFunc& func : host_funcs)
    if (!kernel_calls(func)) loops.push_back(func);
  PhaseClock codegen;
  llvm::LLVMContext context;
  std::unique_ptr<llvm::TargetMachine> tm = make_cpu_target_machine(cpu);
  std::unique_ptr<llvm::Module> module = codegen_cpu(loops, context, *tm);
  llvm::IRBuilder<> b(context);
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);
  llvm::FunctionCallee run_embedded = module->getOrInsertFunction(
      "texrt_vdla_run_embedded", llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr, b.getInt64Ty(), ptr, ptr}, false));
  for (const VdlaKernelProgram& vdla : programs) add_vdla_kernel(*module, b, vdla, run_embedded);
  EntryRuntime workspace = host_workspace(*module);
  for (const LoweredFunc& func : host_funcs)
    if (std::optional<KernelCalls> calls = kernel_calls(func)) {
      add_kernel_call_entry(*module, b, func, *calls, false, workspace);
      if (caller_workspace_entry(func)) add_kernel_call_entry(*module, b, func, *calls, true, workspace);
    }
  std::string errors;
  llvm::raw_string_ostream error_stream(errors);
  TEXC_CHECK(!llvm::verifyModule(*module, &error_stream)) << "invalid vdla host module:\n" << errors;
  if (times) times->codegen = codegen.elapsed();
  PhaseClock optimization;
  optimize_module(*module, *tm, cpu.opt_level);
  if (times) times->optimize = optimization.elapsed();
  PhaseClock emission;
  write_module_file(*module, *tm, path, llvm::CodeGenFileType::ObjectFile);
  if (times) times->emit = emission.elapsed();
}

}  // namespace texc
