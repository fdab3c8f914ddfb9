#include "backends/llvm/CodeGenCPU.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <optional>

#include "backends/llvm/UsedSymbols.h"
#include "ir/CallerWorkspace.h"
#include "ir/KernelScratch.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"

namespace texc {

using llvm::Value;

namespace {

constexpr int64_t kOwnAllocationAlignment = 64;       // texrt_alloc and our allocas
// kMaxStackBytesGlobal, kMaxStackBytesLocal (ir/KernelScratch.h): the stack's limits per scope,
// shared with the pass that gives a graph kernel its heap buffers as arguments.

}  // namespace

CodeGenCPU::CodeGenCPU(llvm::LLVMContext& context, llvm::TargetMachine& target_machine,
                       const std::string& module_name, const CodeGenOptions& options)
    : CodeGenLLVM(context, target_machine, module_name), options_(options) {
  const llvm::MCSubtargetInfo* sti = target_machine.getMCSubtargetInfo();
  if (sti && target_machine.getTargetTriple().isX86()) {
    masked_32_64_ = sti->checkFeatures("+avx512f");
    masked_8_16_ = sti->checkFeatures("+avx512bw");
  }
}

llvm::Function* CodeGenCPU::emit_function_entry(const LoweredFunc& func) {
  TEXC_CHECK(func.kind == FunctionKind::Host) << "device function " << func.name << " given to the CPU code generator";
  closure_count_ = 0;
  odd_vector_stores_.clear();
  for_each_stmt(func.body, [&](const Stmt& s) {
    const Store* store = s->as<Store>();
    if (!store || store->indices.size() != 1) return;
    const Ramp* ramp = store->indices[0]->as<Ramp>();
    int lanes = store->value->type.lanes;
    if (ramp && is_const_int(ramp->stride, 1) && lanes >= 3 && (lanes & (lanes - 1)) != 0)
      odd_vector_stores_[store->buffer.get()].insert(lanes);
  });
  odd_vector_loads_.clear();
  for_each_expr(func.body, [&](const Expr& e) {
    const Load* load = e->as<Load>();
    if (!load || load->indices.size() != 1) return;
    const Ramp* ramp = load->indices[0]->as<Ramp>();
    int lanes = load->type.lanes;
    if (ramp && is_const_int(ramp->stride, 1) && lanes >= 3 && (lanes & (lanes - 1)) != 0)
      odd_vector_loads_[load->buffer.get()].insert(lanes);
  });
  return CodeGenLLVM::emit_function_entry(func);
}

// `void op.packed(ptr args)`: loads each argument pointer from the array and calls the op.
void CodeGenCPU::finish_function(const LoweredFunc& func, llvm::Function* op_function) {
  if (!options_.packed_wrappers) return;
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_type_}, false);
  llvm::Function* wrapper = create_function(type, llvm::GlobalValue::ExternalLinkage, func.name + ".packed");
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", wrapper));
  std::vector<Value*> args;
  for (size_t i = 0; i < func.args.size(); ++i)
    args.push_back(b_.CreateLoad(ptr_type_, b_.CreateConstGEP1_64(ptr_type_, wrapper->getArg(0), i)));
  b_.CreateCall(op_function, args);
  b_.CreateRetVoid();
}

llvm::FunctionCallee CodeGenCPU::runtime_function(const std::string& name) {
  llvm::FunctionType* type = nullptr;
  if (name == "texrt_parallel_for")
    type = llvm::FunctionType::get(b_.getVoidTy(), {i64_, ptr_type_, ptr_type_}, false);
  else if (name == "texrt_alloc")
    type = llvm::FunctionType::get(ptr_type_, {i64_}, false);
  else if (name == "texrt_free")
    type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_type_}, false);
  TEXC_CHECK(type) << "unknown runtime function " << name;
  llvm::FunctionCallee callee = module_->getOrInsertFunction(name, type);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    if (name == "texrt_alloc") fn->addRetAttr(llvm::Attribute::NoAlias);
  }
  return callee;
}

// The body becomes `void op.par.N(i64 task, ptr closure)`: the closure holds the loop's min and every
// variable and buffer pointer of the enclosing scope that the body uses.
void CodeGenCPU::emit_parallel_loop(const For* op) {
  TEXC_CHECK(op->var->type == Index()) << "parallel loop variable " << op->var->name << " is " << op->var->type.str();
  Value* min = emit(op->min);
  Value* extent = emit(op->extent);

  UsedSymbols used = used_symbols(op->body);
  std::vector<const Variable*> captured_vars;
  for (const Variable* v : used.vars)
    if (v != op->var.get() && vars_.count(v)) captured_vars.push_back(v);
  std::vector<const BufferNode*> captured_buffers;
  for (const BufferNode* buf : used.buffers)
    if (buffers_.count(buf)) captured_buffers.push_back(buf);

  std::vector<llvm::Type*> field_types{i64_};
  for (const Variable* v : captured_vars) field_types.push_back(vars_[v]->getType());
  for (size_t i = 0; i < captured_buffers.size(); ++i) field_types.push_back(ptr_type_);
  llvm::StructType* closure_type = llvm::StructType::get(context_, field_types);
  llvm::AllocaInst* closure = entry_alloca(closure_type, 8, op->var->name + ".closure");
  std::vector<Value*> field_values{min};
  for (const Variable* v : captured_vars) field_values.push_back(vars_[v]);
  for (const BufferNode* buf : captured_buffers) field_values.push_back(buffers_[buf].ptr);
  for (size_t i = 0; i < field_values.size(); ++i)
    b_.CreateStore(field_values[i], b_.CreateStructGEP(closure_type, closure, unsigned(i)));

  auto* task_type = llvm::FunctionType::get(b_.getVoidTy(), {i64_, ptr_type_}, false);
  std::string name = op_name_ + ".par." + std::to_string(closure_count_++);
  llvm::Function* task_fn = create_function(task_type, llvm::GlobalValue::InternalLinkage, name);
  task_fn->getArg(0)->setName(op->var->name + ".task");
  task_fn->getArg(1)->setName("closure");
  task_fn->getArg(1)->addAttr(llvm::Attribute::NoAlias);
  task_fn->getArg(1)->addAttr(llvm::Attribute::NoCapture);
  task_fn->getArg(1)->addAttr(llvm::Attribute::ReadOnly);

  // Emit the task function with its own scope, then come back.
  llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
  llvm::Function* saved_function = function_;
  auto saved_vars = vars_;
  auto saved_buffers = buffers_;
  Value* saved_mask = vector_mask_;

  function_ = task_fn;
  vector_mask_ = nullptr;
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", task_fn));
  llvm::Argument* closure_arg = task_fn->getArg(1);
  auto load_field = [&](unsigned i) {
    return b_.CreateLoad(field_types[i], b_.CreateStructGEP(closure_type, closure_arg, i));
  };
  Value* task_min = load_field(0);
  vars_.clear();
  buffers_.clear();
  unsigned field = 1;
  for (const Variable* v : captured_vars) vars_[v] = load_field(field++);
  for (const BufferNode* buf : captured_buffers) {
    llvm::LoadInst* ptr = load_field(field++);
    ptr->setName(buf->name);
    ptr->setMetadata(llvm::LLVMContext::MD_nonnull, llvm::MDNode::get(context_, {}));
    buffers_[buf] = saved_buffers[buf];
    buffers_[buf].ptr = ptr;
  }
  {
    Value* var = b_.CreateAdd(task_min, task_fn->getArg(0), op->var->name, false, true);
    ScopedVar bind(*this, op->var.get(), var);
    emit(op->body);
  }
  b_.CreateRetVoid();

  function_ = saved_function;
  vars_ = std::move(saved_vars);
  buffers_ = std::move(saved_buffers);
  vector_mask_ = saved_mask;
  b_.restoreIP(saved_ip);
  b_.CreateCall(runtime_function("texrt_parallel_for"), {extent, task_fn, closure});
}

std::optional<int64_t> CodeGenCPU::stack_bytes(const Buffer& buffer, MemScope scope) {
  std::optional<int64_t> elements = constant_elements(buffer);
  if (!elements || *elements < 0 || *elements > (int64_t(1) << 40)) return std::nullopt;
  int64_t bytes = *elements * element_bytes(buffer->dtype);
  int64_t limit = scope == MemScope::Local ? kMaxStackBytesLocal : kMaxStackBytesGlobal;
  if (bytes > limit) return std::nullopt;
  return std::max<int64_t>(bytes, 1);
}

BufferValue CodeGenCPU::allocate_buffer(const Buffer& buffer, MemScope scope) {
  if (std::optional<int64_t> bytes = stack_bytes(buffer, scope)) {
    llvm::AllocaInst* stack = entry_alloca(llvm::ArrayType::get(b_.getInt8Ty(), uint64_t(*bytes)),
                                           kOwnAllocationAlignment, buffer->name);
    b_.CreateLifetimeStart(stack, b_.getInt64(uint64_t(*bytes)));
    return {stack, kOwnAllocationAlignment};
  }
  Value* size = b_.getInt64(uint64_t(element_bytes(buffer->dtype)));
  for (const Expr& extent : buffer->shape) size = b_.CreateMul(size, emit_index(extent), "", false, true);
  return {b_.CreateCall(runtime_function("texrt_alloc"), {size}, buffer->name), kOwnAllocationAlignment};
}

void CodeGenCPU::free_buffer(const Buffer& buffer, MemScope scope, const BufferValue& allocated) {
  if (std::optional<int64_t> bytes = stack_bytes(buffer, scope))
    b_.CreateLifetimeEnd(allocated.ptr, b_.getInt64(uint64_t(*bytes)));
  else
    b_.CreateCall(runtime_function("texrt_free"), {allocated.ptr});
}

Value* CodeGenCPU::thread_index(const std::string& tag) {
  TEXC_UNREACHABLE() << "thread index of '" << tag << "' asked in CPU op " << op_name_
                     << ": a CPU has no thread index (lowering for a CPU leaves no thread-bound loop)";
}

void CodeGenCPU::emit_barrier() {
  TEXC_UNREACHABLE() << "barrier in CPU op " << op_name_ << ": a CPU has no thread block to synchronise";
}

// Dense vector loads whose lane count is not a power of two (the tail of a split: 31, 12, 7 lanes):
// LLVM legalizes such a load or store as pieces of 16, 8, 4, 2 and 1 lanes and rebuilds the vector
// lane by lane (hundreds of inserts and spills in a register tile). Where the target has masked
// moves for the element size (AVX-512), such a load is one masked load of the next power of two.
// Only loads, and only of operands (inputs, packed or padded copies in memory), never of local tiles
// or outputs: LLVM keeps an accumulator in registers across a loop (LICM promotion, SROA) only when
// it is accessed with plain loads and stores. An intermediate in global scope can be such a tile
// too (a reduction stage computed at a register tile, its epilogue fused: depthwise_conv2d's
// 7-column rows): a load of as many lanes as the op's stores to the buffer is left plain, or the
// masked load reads back a vector just stored in pieces (no store forwarding, and no SROA:
// measured 19x slower on a 960-channel 7x7 depthwise layer).
bool CodeGenCPU::pad_load_to_masked(const Load* op) const {
  int lanes = op->type.lanes;
  Type elem = op->buffer->dtype;
  if (lanes < 3 || (lanes & (lanes - 1)) == 0 || elem.is_bool()) return false;
  const BufferNode& b = *op->buffer;
  bool operand = b.role == BufferRole::Input || (b.role == BufferRole::Intermediate && b.scope != MemScope::Local);
  if (!operand) return false;
  if (auto it = odd_vector_stores_.find(op->buffer.get()); it != odd_vector_stores_.end() && it->second.count(lanes))
    return false;
  return has_masked_loads(elem);
}

// A dense store of a lane count that is not a power of two to an op output: LLVM splits it into
// pieces of 8, 4, 2 and 1 lanes (3 stores for depthwise_conv2d's 14-column rows); with masked
// moves it is one. Not to intermediates, which may be tiles read back (above), and not to an
// output the op also reads with as many lanes: that output is itself the accumulator tile (a
// depthwise_conv2d without epilogue accumulates in Y), which LLVM keeps in registers only when it
// is stored with plain stores (masked stores made workload D5 7x slower).
bool CodeGenCPU::pad_store_to_masked(const Store* op) const {
  int lanes = op->value->type.lanes;
  Type elem = op->buffer->dtype;
  if (lanes < 3 || (lanes & (lanes - 1)) == 0 || elem.is_bool() || op->buffer->role != BufferRole::Output) return false;
  if (auto it = odd_vector_loads_.find(op->buffer.get()); it != odd_vector_loads_.end() && it->second.count(lanes))
    return false;
  return has_masked_loads(elem);
}

bool CodeGenCPU::has_masked_loads(Type elem) const {
  int bytes = elem.bytes();
  return ((bytes == 4 || bytes == 8) && masked_32_64_) || ((bytes == 1 || bytes == 2) && masked_8_16_);
}

std::unique_ptr<llvm::Module> codegen_cpu(const std::vector<LoweredFunc>& funcs, llvm::LLVMContext& context,
                                          llvm::TargetMachine& target_machine, const CodeGenOptions& options) {
  CodeGenCPU codegen(context, target_machine, funcs.empty() ? "texc" : funcs[0].name, options);
  for (const LoweredFunc& func : funcs) {
    codegen.add_function(func);
    // A graph's entry also with the caller's workspace (ir/CallerWorkspace.h).
    if (std::optional<LoweredFunc> with_workspace = caller_workspace_entry(func)) codegen.add_function(*with_workspace);
  }
  return codegen.finish();
}

}  // namespace texc
