// CodeGenLLVM: the class and its default hooks (CodeGenLLVM.h), function entry, alias metadata, and
// the statements: stores, loops by kind, allocations, ifs. Expressions: CodeGenLLVMExpr.cpp.
#include "backends/llvm/CodeGenLLVM.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <unordered_set>

#include "backends/llvm/UsedSymbols.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/KernelScratch.h"
#include "ir/SymbolNames.h"

namespace texc {

using llvm::Value;

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext& context, llvm::TargetMachine& target_machine,
                         const std::string& module_name)
    : context_(context), module_(std::make_unique<llvm::Module>(module_name, context)), b_(context),
      cpu_(target_machine.getTargetCPU().str()), features_(target_machine.getTargetFeatureString().str()) {
  module_->setTargetTriple(target_machine.getTargetTriple().str());
  module_->setDataLayout(target_machine.createDataLayout());
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(true);  // a*b+c may become an FMA
  b_.setFastMathFlags(fmf);
  ptr_type_ = llvm::PointerType::get(context_, 0);
  i64_ = b_.getInt64Ty();
}

CodeGenLLVM::~CodeGenLLVM() = default;

void CodeGenLLVM::add_function(const LoweredFunc& func) {
  TEXC_CHECK(module_) << "add_function after finish";
  TEXC_CHECK(!module_->getFunction(op_symbol(func.name))) << "two ops named " << func.name;
  op_name_ = func.name;
  vars_.clear();
  var_moduli_.clear();
  buffers_.clear();
  vector_mask_ = nullptr;
  create_alias_scopes(func);
  function_ = emit_function_entry(func);
  emit(func.body);
  b_.CreateRetVoid();
  finish_function(func, function_);
}

std::unique_ptr<llvm::Module> CodeGenLLVM::finish() {
  TEXC_CHECK(module_) << "finish called twice";
  std::string errors;
  llvm::raw_string_ostream os(errors);
  bool broken = llvm::verifyModule(*module_, &os);
  TEXC_CHECK(!broken) << "code generation produced invalid LLVM IR:\n" << errors;
  return std::move(module_);
}

CodeGenLLVM::ScopedVar::ScopedVar(CodeGenLLVM& cg, const Variable* var, Value* value,
                                  std::optional<ModulusRemainder> modulus)
    : cg_(cg), var_(var) {
  if (auto it = cg.vars_.find(var); it != cg.vars_.end()) old_value_ = it->second;
  if (auto it = cg.var_moduli_.find(var); it != cg.var_moduli_.end()) old_modulus_ = it->second;
  cg.vars_[var] = value;
  if (modulus) cg.var_moduli_[var] = *modulus;
  else cg.var_moduli_.erase(var);
}

CodeGenLLVM::ScopedVar::~ScopedVar() {
  if (old_value_) cg_.vars_[var_] = old_value_;
  else cg_.vars_.erase(var_);
  if (old_modulus_) cg_.var_moduli_[var_] = *old_modulus_;
  else cg_.var_moduli_.erase(var_);
}

std::optional<int64_t> CodeGenLLVM::constant_elements(const Buffer& buffer) {
  int64_t elements = 1;
  for (const Expr& extent : buffer->shape) {
    int64_t v;
    if (!is_const_int(extent, &v) || __builtin_mul_overflow(elements, v, &elements)) return std::nullopt;
  }
  return elements;
}

// =============================================================================================
// Types

llvm::Type* CodeGenLLVM::value_type(Type t) {
  llvm::Type* scalar = nullptr;
  switch (t.code) {
    case TypeCode::Bool: scalar = b_.getInt1Ty(); break;
    case TypeCode::Int:
    case TypeCode::UInt: scalar = b_.getIntNTy(t.bits); break;
    case TypeCode::Float:
      if (t.bits == 16) scalar = b_.getHalfTy();
      else if (t.bits == 32) scalar = b_.getFloatTy();
      else if (t.bits == 64) scalar = b_.getDoubleTy();
      else TEXC_UNREACHABLE() << "no LLVM type for " << t.str();
      break;
    case TypeCode::BFloat: scalar = b_.getBFloatTy(); break;
  }
  return t.is_vector() ? llvm::FixedVectorType::get(scalar, t.lanes) : scalar;
}

// bool is i8 in memory; bf16 is i16 in memory (loads and stores move bits, bitcast to bfloat:
// masked or gathered bfloat vectors would make LLVM 19's x86 legalization call __truncsfbf2
// where the CPU lacks AVX512-BF16, and libgcc 12 has no such function).
llvm::Type* CodeGenLLVM::memory_type(Type t) {
  if (!t.is_bool() && !t.is_bfloat()) return value_type(t);
  llvm::Type* scalar = t.is_bool() ? b_.getInt8Ty() : b_.getInt16Ty();
  return t.is_vector() ? llvm::FixedVectorType::get(scalar, t.lanes) : scalar;
}


// =============================================================================================
// Functions and metadata

llvm::Function* CodeGenLLVM::create_function(llvm::FunctionType* type, llvm::GlobalValue::LinkageTypes linkage,
                                         const std::string& name) {
  llvm::Function* fn = llvm::Function::Create(type, linkage, name, *module_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  if (!cpu_.empty()) fn->addFnAttr("target-cpu", cpu_);
  if (!features_.empty()) fn->addFnAttr("target-features", features_);
  return fn;
}

void CodeGenLLVM::create_alias_scopes(const LoweredFunc& func) {
  std::vector<const BufferNode*> buffers;
  std::unordered_set<const BufferNode*> seen;
  auto add = [&](const BufferNode* b) {
    if (seen.insert(b).second) buffers.push_back(b);
  };
  for (const Buffer& arg : func.args) add(arg.get());
  UsedSymbols used = used_symbols(func.body);
  for (const BufferNode* b : used.buffers) add(b);
  for_each_stmt(func.body, [&](const Stmt& s) {
    if (const Allocate* alloc = s->as<Allocate>()) add(alloc->buffer.get());
  });

  llvm::MDBuilder md(context_);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(func.name);
  std::vector<llvm::Metadata*> scopes;
  for (const BufferNode* b : buffers) scopes.push_back(md.createAnonymousAliasScope(domain, b->name));
  alias_metadata_.clear();
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::vector<llvm::Metadata*> others;
    for (size_t j = 0; j < buffers.size(); ++j)
      if (j != i) others.push_back(scopes[j]);
    alias_metadata_[buffers[i]] = {llvm::MDNode::get(context_, {scopes[i]}), llvm::MDNode::get(context_, others)};
  }
}

void CodeGenLLVM::attach_alias_metadata(llvm::Instruction* inst, const BufferNode* buffer) {
  auto it = alias_metadata_.find(buffer);
  if (it == alias_metadata_.end()) return;
  inst->setMetadata(llvm::LLVMContext::MD_alias_scope, it->second.scope);
  inst->setMetadata(llvm::LLVMContext::MD_noalias, it->second.noalias);
}

const BufferValue& CodeGenLLVM::buffer_value(const Buffer& buffer) {
  auto it = buffers_.find(buffer.get());
  TEXC_CHECK(it != buffers_.end()) << "buffer '" << buffer->name << "' is used outside its allocation in op "
                                   << op_name_;
  return it->second;
}

llvm::AllocaInst* CodeGenLLVM::entry_alloca(llvm::Type* type, int64_t align, const std::string& name) {
  llvm::BasicBlock& entry = function_->getEntryBlock();
  llvm::IRBuilder<> entry_builder(&entry, entry.begin());
  llvm::AllocaInst* alloca = entry_builder.CreateAlloca(type, nullptr, name);
  alloca->setAlignment(llvm::Align(uint64_t(align)));
  return alloca;
}

int64_t CodeGenLLVM::vector_alignment(const BufferValue& buf, const Expr& base_index, Type element) {
  return provable_alignment(modulus_remainder(base_index, var_moduli_), element_bytes(element), buf.align);
}


// The default entry: `void op(ptr...)` with the argument attributes of CodeGenLLVM.h.
llvm::Function* CodeGenLLVM::emit_function_entry(const LoweredFunc& func) {
  std::vector<llvm::Type*> params(func.args.size(), ptr_type_);
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
  llvm::Function* fn = create_function(type, llvm::GlobalValue::ExternalLinkage, op_symbol(func.name));
  for (size_t i = 0; i < func.args.size(); ++i) {
    const Buffer& buffer = func.args[i];
    llvm::Argument* arg = fn->getArg(unsigned(i));
    arg->setName(buffer->name);
    arg->addAttr(llvm::Attribute::NoAlias);
    arg->addAttr(llvm::Attribute::NoCapture);
    arg->addAttr(llvm::Attribute::NoUndef);
    if (buffer->role == BufferRole::Input) arg->addAttr(llvm::Attribute::ReadOnly);
    if (auto elements = constant_elements(buffer); elements && *elements > 0)
      arg->addAttr(llvm::Attribute::getWithDereferenceableBytes(context_, uint64_t(*elements * element_bytes(buffer->dtype))));
    // The caller only promises the element type's natural alignment; a graph kernel's scratch
    // argument, kScratchAlignment (ir/KernelScratch.h), as the allocation it replaces had.
    buffers_[buffer.get()] = {arg, is_scratch_arg(buffer) ? kScratchAlignment : element_bytes(buffer->dtype)};
  }
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", fn));
  return fn;
}

void CodeGenLLVM::finish_function(const LoweredFunc&, llvm::Function*) {}

// =============================================================================================
// Statements

void CodeGenLLVM::emit(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Store: return emit_store(s->as<Store>());
    case StmtKind::For: return emit_for(s->as<For>());
    case StmtKind::Allocate: return emit_allocate(s->as<Allocate>());
    case StmtKind::Seq:
      for (const Stmt& st : s->as<Seq>()->stmts) emit(st);
      return;
    case StmtKind::IfThenElse: return emit_if(s->as<IfThenElse>());
    case StmtKind::LetStmt: {
      const LetStmt* op = s->as<LetStmt>();
      Value* value = emit(op->value);
      value->setName(op->var->name);
      std::optional<ModulusRemainder> modulus;
      if (op->value->type.is_integer() && op->value->type.is_scalar()) modulus = modulus_remainder(op->value, var_moduli_);
      ScopedVar bind(*this, op->var.get(), value, modulus);
      emit(op->body);
      return;
    }
    case StmtKind::Evaluate: {
      const Expr& value = s->as<Evaluate>()->value;
      if (const Call* call = value->as<Call>(); call && call->call_kind == CallKind::Extern)
        emit_call(call, /*as_statement=*/true);
      else
        emit(value);
      return;
    }
    case StmtKind::AttrStmt: return emit_attr(s->as<AttrStmt>());
    case StmtKind::Block: TEXC_UNREACHABLE() << "Block in the lowered op " << op_name_ << " (lower_blocks did not run)";
  }
  TEXC_UNREACHABLE();
}

void CodeGenLLVM::emit_attr(const AttrStmt* op) { emit(op->body); }

void CodeGenLLVM::emit_store(const Store* op) {
  TEXC_CHECK(op->indices.size() == 1) << "store to '" << op->buffer->name << "' with " << op->indices.size()
                                      << " indices: buffers must be flattened";
  Type elem = op->buffer->dtype;
  llvm::Type* elem_mem = memory_type(elem);
  Value* value = emit(op->value);
  if (elem.is_bool()) value = b_.CreateZExt(value, memory_type(op->value->type));
  if (elem.is_bfloat()) value = b_.CreateBitCast(value, memory_type(op->value->type));
  const BufferValue& buf = buffer_value(op->buffer);
  const Expr& index = op->indices[0];
  int lanes = op->value->type.lanes;
  llvm::Instruction* inst = nullptr;
  if (lanes == 1) {
    TEXC_CHECK(index->type.is_scalar()) << "scalar store to '" << op->buffer->name << "' with a vector index";
    Value* ptr = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(index));
    inst = b_.CreateAlignedStore(value, ptr, llvm::Align(uint64_t(element_bytes(elem))));
  } else if (const Ramp* ramp = index->as<Ramp>(); ramp && is_const_int(ramp->stride, 1)) {
    Value* ptr = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(ramp->base));
    llvm::Align align(uint64_t(vector_alignment(buf, ramp->base, elem)));
    if (!elem.is_bool() && pad_store_to_masked(op)) {
      // The value widened to the next power of two (the extra lanes poison, not written).
      int wide_lanes = int(llvm::PowerOf2Ceil(uint64_t(lanes)));
      std::vector<int> widen;
      std::vector<llvm::Constant*> own;
      for (int j = 0; j < wide_lanes; ++j) {
        widen.push_back(j < lanes ? j : lanes);
        own.push_back(b_.getInt1(j < lanes));
      }
      Value* wide = b_.CreateShuffleVector(value, llvm::PoisonValue::get(value->getType()), widen);
      inst = b_.CreateMaskedStore(wide, ptr, align, llvm::ConstantVector::get(own));
    } else {
      inst = b_.CreateAlignedStore(value, ptr, align);
    }
  } else {
    TEXC_CHECK(index->type.lanes == lanes) << "store to '" << op->buffer->name << "': index and value lanes differ";
    Value* ptrs = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(index));
    Value* all = llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b_.getInt1Ty(), lanes));
    inst = b_.CreateMaskedScatter(value, ptrs, llvm::Align(uint64_t(element_bytes(elem))), all);
  }
  attach_alias_metadata(inst, op->buffer.get());
}

void CodeGenLLVM::emit_for(const For* op) {
  switch (op->for_kind) {
    case ForKind::Serial: return emit_serial_loop(op);
    case ForKind::Vectorized: return emit_vectorized_loop(op);
    case ForKind::Unrolled: return emit_unrolled_loop(op);
    case ForKind::Parallel: return emit_parallel_loop(op);
    case ForKind::ThreadBound: return emit_thread_bound_loop(op);
    case ForKind::Tensorized:
      TEXC_UNREACHABLE() << "tensorized loop '" << op->var->name << "' was not replaced in op " << op_name_;
  }
}

void CodeGenLLVM::emit_serial_loop(const For* op) { emit_counted_loop(op, false); }

void CodeGenLLVM::emit_vectorized_loop(const For* op) { emit_counted_loop(op, true); }

void CodeGenLLVM::emit_counted_loop(const For* op, bool vectorize_hint) {
  llvm::Type* type = value_type(op->var->type);
  Value* min = emit(op->min);
  Value* end = b_.CreateAdd(min, emit(op->extent), op->var->name + ".end", false, true);
  llvm::BasicBlock* preheader = b_.GetInsertBlock();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(context_, op->var->name + ".loop", function_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, op->var->name + ".exit", function_);
  b_.CreateCondBr(b_.CreateICmpSLT(min, end), body, exit);

  b_.SetInsertPoint(body);
  llvm::PHINode* var = b_.CreatePHI(type, 2, op->var->name);
  var->addIncoming(min, preheader);
  {
    ScopedVar bind(*this, op->var.get(), var);
    emit(op->body);
  }
  Value* next = b_.CreateAdd(var, llvm::ConstantInt::get(type, 1), op->var->name + ".next", false, true);
  var->addIncoming(next, b_.GetInsertBlock());
  llvm::BranchInst* back_edge = b_.CreateCondBr(b_.CreateICmpSLT(next, end), body, exit);
  if (vectorize_hint) {
    llvm::Metadata* enable[] = {llvm::MDString::get(context_, "llvm.loop.vectorize.enable"),
                                llvm::ConstantAsMetadata::get(b_.getTrue())};
    llvm::Metadata* ops[] = {nullptr, llvm::MDNode::get(context_, enable)};
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(context_, ops);
    loop_id->replaceOperandWith(0, loop_id);
    back_edge->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
  b_.SetInsertPoint(exit);
}

void CodeGenLLVM::emit_unrolled_loop(const For* op) {
  int64_t extent;
  if (!is_const_int(op->extent, &extent)) return emit_serial_loop(op);
  llvm::Type* type = value_type(op->var->type);
  Value* min = emit(op->min);
  int64_t min_value;
  bool constant_min = is_const_int(op->min, &min_value);
  for (int64_t k = 0; k < extent; ++k) {
    Value* v = b_.CreateAdd(min, llvm::ConstantInt::get(type, uint64_t(k)), op->var->name, false, true);
    std::optional<ModulusRemainder> modulus;
    if (constant_min) modulus = ModulusRemainder{0, min_value + k};
    ScopedVar bind(*this, op->var.get(), v, modulus);
    emit(op->body);
  }
}

// The launch runs the iterations: no loop, the variable is min + the thread's index along the tag.
void CodeGenLLVM::emit_thread_bound_loop(const For* op) {
  Value* index = thread_index(op->thread_tag);
  Value* min = emit(op->min);
  Value* var = b_.CreateAdd(min, b_.CreateIntCast(index, value_type(op->var->type), false), op->var->name, false, true);
  ScopedVar bind(*this, op->var.get(), var);
  emit(op->body);
}

void CodeGenLLVM::emit_allocate(const Allocate* op) {
  const Buffer& buffer = op->buffer;
  BufferValue allocated = allocate_buffer(buffer, buffer->scope);
  auto previous = buffers_.find(buffer.get());
  std::optional<BufferValue> outer;
  if (previous != buffers_.end()) outer = previous->second;
  buffers_[buffer.get()] = allocated;
  emit(op->body);
  if (outer) buffers_[buffer.get()] = *outer;
  else buffers_.erase(buffer.get());
  free_buffer(buffer, buffer->scope, allocated);
}

void CodeGenLLVM::emit_if(const IfThenElse* op) {
  TEXC_CHECK(op->cond->type.is_scalar()) << "if with a vector condition in op " << op_name_;
  Value* cond = emit(op->cond);
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(context_, "then", function_);
  llvm::BasicBlock* merge_bb = llvm::BasicBlock::Create(context_, "endif", function_);
  llvm::BasicBlock* else_bb = op->else_case ? llvm::BasicBlock::Create(context_, "else", function_) : merge_bb;
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  emit(op->then_case);
  b_.CreateBr(merge_bb);
  if (op->else_case) {
    b_.SetInsertPoint(else_bb);
    emit(op->else_case);
    b_.CreateBr(merge_bb);
  }
  b_.SetInsertPoint(merge_bb);
}

}  // namespace texc
