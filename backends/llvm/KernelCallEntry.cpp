#include "backends/llvm/KernelCallEntry.h"

#include "ir/CallerWorkspace.h"
#include "ir/Diagnostics.h"
#include "ir/SymbolNames.h"

namespace texc {

void add_kernel_call_entry(llvm::Module& module, llvm::IRBuilder<>& b, const LoweredFunc& func, const KernelCalls& calls,
                           bool caller_workspace, const EntryRuntime& runtime) {
  llvm::LLVMContext& context = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);
  std::vector<llvm::Type*> params(func.args.size() + (caller_workspace ? 1 : 0), ptr);
  std::string symbol = op_symbol(caller_workspace ? caller_workspace_entry_name(func.name) : func.name);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), params, false),
                                    llvm::GlobalValue::ExternalLinkage, symbol, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  for (size_t i = 0; i < func.args.size(); ++i) fn->getArg(unsigned(i))->setName(func.args[i]->name);
  const bool allocates = calls.workspace_bytes > 0 && !caller_workspace;
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context, "done", fn);
  llvm::Value* result = b.CreateAlloca(b.getInt32Ty(), nullptr, "rc");
  b.CreateStore(b.getInt32(0), result);
  llvm::Value* workspace_slot = b.CreateAlloca(ptr, nullptr, "workspace.slot");
  b.CreateStore(llvm::ConstantPointerNull::get(ptr), workspace_slot);
  auto check = [&](llvm::Value* code, const std::string& next_name) {  // goto done unless code is 0
    b.CreateStore(code, result);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(context, next_name, fn, done);
    b.CreateCondBr(b.CreateICmpEQ(code, b.getInt32(0)), next, done);
    b.SetInsertPoint(next);
  };
  if (allocates)
    check(runtime.allocate(b, workspace_slot, uint64_t(calls.workspace_bytes)), "allocated");
  llvm::Value* workspace = nullptr;
  if (caller_workspace) {
    workspace = fn->getArg(unsigned(func.args.size()));
    workspace->setName("workspace");
  } else if (allocates) {
    workspace = b.CreateLoad(ptr, workspace_slot, "workspace");
  }
  for (const KernelCall& call : calls.calls) {
    llvm::Function* kernel = runtime.callee ? runtime.callee(call.kernel) : module.getFunction(op_symbol(call.kernel));
    TEXC_CHECK(kernel && kernel->arg_size() == call.args.size())
        << "graph entry " << func.name << " calls " << call.kernel << ", which is not a kernel of its module";
    std::vector<llvm::Value*> args;
    for (const KernelCallArg& arg : call.args)
      args.push_back(arg.arg >= 0 ? static_cast<llvm::Value*>(fn->getArg(unsigned(arg.arg)))
                                  : b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workspace, uint64_t(arg.workspace_offset)));
    llvm::Value* code = b.CreateCall(kernel, args);
    if (kernel->getReturnType()->isIntegerTy(32)) check(code, call.kernel + ".ok");
  }
  b.CreateBr(done);
  // Also after a failed call: the kernels launched before it are waited for, the workspace released.
  // The first error is returned.
  b.SetInsertPoint(done);
  llvm::Value* code = b.CreateLoad(b.getInt32Ty(), result);
  auto first_error = [&](llvm::Value* earlier, llvm::Value* later) {
    return b.CreateSelect(b.CreateICmpEQ(earlier, b.getInt32(0)), later, earlier);
  };
  if (runtime.finish) code = first_error(code, runtime.finish(b));
  if (allocates) code = first_error(code, runtime.release(b, b.CreateLoad(ptr, workspace_slot)));
  b.CreateRet(code);
}

}  // namespace texc
