#include "backends/llvm/CodeGenLLVM.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetMachine.h>

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "backends/llvm/MathLLVM.h"
#include "ir/ModulusRemainder.h"
#include "backends/llvm/UsedSymbols.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"

namespace texc {

namespace {

using llvm::Value;

constexpr int64_t kOwnAllocationAlignment = 64;       // texrt_alloc and our allocas
constexpr int64_t kMaxStackBytesGlobal = 64 * 1024;   // "global" Allocates up to this size go on the stack
constexpr int64_t kMaxStackBytesLocal = 1024 * 1024;  // "local" ones unless absurdly large

/// A buffer's base pointer in the function being emitted, and the alignment of that pointer.
struct BufferValue {
  Value* ptr = nullptr;
  int64_t align = 1;
};

/// The alias-scope metadata of one buffer: its own scope, and every other buffer's.
struct AliasMetadata {
  llvm::MDNode* scope = nullptr;
  llvm::MDNode* noalias = nullptr;
};

/// True if evaluating e can neither fault nor have side effects (no memory reads, no extern calls).
/// Integer division is safe: it is emitted with a zero-divisor guard.
bool is_safe_to_speculate(const Expr& e) {
  bool safe = true;
  for_each_expr(e, [&](const Expr& sub) {
    if (sub->as<Load>()) safe = false;
    if (const Call* call = sub->as<Call>(); call && call->call_kind == CallKind::Extern) safe = false;
  });
  return safe;
}

/// The constant value of a scalar IntImm or of a Broadcast of one.
std::optional<int64_t> constant_int_operand(const Expr& e) {
  int64_t v;
  if (is_const_int(e, &v)) return v;
  if (const Broadcast* bc = e->as<Broadcast>(); bc && is_const_int(bc->value, &v)) return v;
  return std::nullopt;
}

std::optional<int64_t> constant_size_of(const Buffer& buffer) {
  int64_t elements = 1;
  for (const Expr& extent : buffer->shape) {
    int64_t v;
    if (!is_const_int(extent, &v) || __builtin_mul_overflow(elements, v, &elements)) return std::nullopt;
  }
  return elements;
}

class CodeGen {
 public:
  CodeGen(llvm::LLVMContext& context, llvm::Module& module, llvm::TargetMachine& tm, const CodeGenOptions& options)
      : context_(context), module_(module), b_(context), options_(options), cpu_(tm.getTargetCPU().str()),
        features_(tm.getTargetFeatureString().str()) {
    if (const llvm::MCSubtargetInfo* sti = tm.getMCSubtargetInfo(); sti && tm.getTargetTriple().isX86()) {
      masked_32_64_ = sti->checkFeatures("+avx512f");
      masked_8_16_ = sti->checkFeatures("+avx512bw");
    }
    llvm::FastMathFlags fmf;
    fmf.setAllowContract(true);  // a*b+c may become an FMA
    b_.setFastMathFlags(fmf);
    ptr_type_ = llvm::PointerType::get(context_, 0);
    i64_ = b_.getInt64Ty();
  }

  void emit_op(const LoweredFunc& func);

 private:
  // ---- types
  llvm::Type* value_type(Type t);
  llvm::Type* memory_type(Type t);
  int64_t element_bytes(Type t) { return t.is_bool() ? 1 : t.bytes(); }

  // ---- expressions
  Value* emit(const Expr& e);
  Value* emit_index(const Expr& e);
  Value* emit_binary(const Binary* op);
  Value* emit_int_div_mod(const Binary* op, Value* a, Value* b);
  Value* emit_float_mod(Value* a, Value* b);
  Value* emit_shift(const Binary* op, Value* a, Value* b);
  Value* emit_float_to_int(Value* v, Type to);
  Value* emit_compare(BinaryOp op, Type t, Value* a, Value* b);
  Value* emit_cast(const Cast* op);
  Value* emit_select(const Select* op);
  Value* emit_call(const Call* op, bool as_statement);
  Value* emit_load(const Load* op);
  Value* emit_ramp(const Ramp* op);
  Value* emit_let(const Let* op);
  Value* element_pointer(const Load* load);
  Value* guarded_by_any_active_lane(llvm::Type* type, const std::function<Value*()>& compute);

  // ---- statements
  void emit(const Stmt& s);
  void emit_store(const Store* op);
  void emit_for(const For* op);
  void emit_serial_loop(const For* op, bool vectorize_hint);
  void emit_unrolled_loop(const For* op, int64_t extent);
  void emit_parallel_loop(const For* op);
  void emit_allocate(const Allocate* op);
  void emit_if(const IfThenElse* op);

  // ---- helpers
  const BufferValue& buffer_value(const Buffer& buffer);
  void attach_alias_metadata(llvm::Instruction* inst, const BufferNode* buffer);
  void create_alias_scopes(const LoweredFunc& func);
  int64_t vector_alignment(const BufferValue& buf, const Expr& base_index, Type element);
  llvm::AllocaInst* entry_alloca(llvm::Type* type, int64_t align, const std::string& name);
  llvm::Function* create_function(llvm::FunctionType* type, llvm::GlobalValue::LinkageTypes linkage,
                                  const std::string& name);
  llvm::FunctionCallee runtime_function(const std::string& name);
  void emit_packed_wrapper(const LoweredFunc& func, llvm::Function* op_function);
  Value* zero_of(llvm::Type* type) { return llvm::Constant::getNullValue(type); }

  /// Binds var to value for the lifetime of the object (restoring any outer binding).
  class ScopedVar {
   public:
    ScopedVar(CodeGen& cg, const Variable* var, Value* value, std::optional<ModulusRemainder> modulus = std::nullopt)
        : cg_(cg), var_(var) {
      if (auto it = cg.vars_.find(var); it != cg.vars_.end()) old_value_ = it->second;
      if (auto it = cg.var_moduli_.find(var); it != cg.var_moduli_.end()) old_modulus_ = it->second;
      cg.vars_[var] = value;
      if (modulus) cg.var_moduli_[var] = *modulus;
      else cg.var_moduli_.erase(var);
    }
    ~ScopedVar() {
      if (old_value_) cg_.vars_[var_] = old_value_;
      else cg_.vars_.erase(var_);
      if (old_modulus_) cg_.var_moduli_[var_] = *old_modulus_;
      else cg_.var_moduli_.erase(var_);
    }

   private:
    CodeGen& cg_;
    const Variable* var_;
    Value* old_value_ = nullptr;
    std::optional<ModulusRemainder> old_modulus_;
  };

  llvm::LLVMContext& context_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  // Dense vector loads whose lane count is not a power of two (the tail of a split: 31, 12, 7
  // lanes): LLVM legalizes such a load or store as pieces of 16, 8, 4, 2 and 1 lanes and rebuilds
  // the vector lane by lane (hundreds of inserts and spills in a register tile). Where the target
  // has masked moves for the element size (AVX-512), such a load is emitted instead as one masked
  // load of the next power of two, whose extra lanes are not read.
  bool pad_to_masked(int lanes, Type elem) const {
    if (lanes < 3 || (lanes & (lanes - 1)) == 0 || elem.is_bool()) return false;
    int bytes = elem.bytes();
    return ((bytes == 4 || bytes == 8) && masked_32_64_) || ((bytes == 1 || bytes == 2) && masked_8_16_);
  }
  // Only loads, and only of operands (inputs, packed or padded copies in memory), never of local
  // tiles or outputs: LLVM keeps an accumulator in registers across a loop (LICM promotion, SROA)
  // only when it is accessed with plain loads and stores.
  static bool read_only_operand(const BufferNode& b) {
    return b.role == BufferRole::Input || (b.role == BufferRole::Intermediate && b.scope != MemScope::Local);
  }
  Value* padded_lane_mask(int lanes) {
    int padded = int(llvm::PowerOf2Ceil(uint64_t(lanes)));
    std::vector<llvm::Constant*> bits;
    for (int i = 0; i < padded; ++i) bits.push_back(b_.getInt1(i < lanes));
    return llvm::ConstantVector::get(bits);
  }
  std::vector<int> shuffle_indices(int n, int valid) {
    std::vector<int> idx;
    for (int i = 0; i < n; ++i) idx.push_back(i < valid ? i : -1);
    return idx;
  }

  CodeGenOptions options_;
  std::string cpu_, features_;
  bool masked_32_64_ = false, masked_8_16_ = false;
  llvm::PointerType* ptr_type_;
  llvm::IntegerType* i64_;

  // State of the op being emitted.
  std::string op_name_;
  int closure_count_ = 0;
  std::unordered_map<const BufferNode*, AliasMetadata> alias_metadata_;
  // State of the function being emitted (the op or one of its closures).
  llvm::Function* function_ = nullptr;
  std::unordered_map<const Variable*, Value*> vars_;
  KnownModuli var_moduli_;
  std::unordered_map<const BufferNode*, BufferValue> buffers_;
  Value* vector_mask_ = nullptr;  // inside a vector Select: the lanes whose loads may happen
};

// =============================================================================================
// Types

llvm::Type* CodeGen::value_type(Type t) {
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
  }
  return t.is_vector() ? llvm::FixedVectorType::get(scalar, t.lanes) : scalar;
}

llvm::Type* CodeGen::memory_type(Type t) {
  if (!t.is_bool()) return value_type(t);
  return t.is_vector() ? llvm::FixedVectorType::get(b_.getInt8Ty(), t.lanes) : static_cast<llvm::Type*>(b_.getInt8Ty());
}

// =============================================================================================
// Functions, metadata, runtime

llvm::Function* CodeGen::create_function(llvm::FunctionType* type, llvm::GlobalValue::LinkageTypes linkage,
                                         const std::string& name) {
  llvm::Function* fn = llvm::Function::Create(type, linkage, name, module_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  if (!cpu_.empty()) fn->addFnAttr("target-cpu", cpu_);
  if (!features_.empty()) fn->addFnAttr("target-features", features_);
  return fn;
}

llvm::FunctionCallee CodeGen::runtime_function(const std::string& name) {
  llvm::FunctionType* type = nullptr;
  if (name == "texrt_parallel_for")
    type = llvm::FunctionType::get(b_.getVoidTy(), {i64_, ptr_type_, ptr_type_}, false);
  else if (name == "texrt_alloc")
    type = llvm::FunctionType::get(ptr_type_, {i64_}, false);
  else if (name == "texrt_free")
    type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_type_}, false);
  TEXC_CHECK(type) << "unknown runtime function " << name;
  llvm::FunctionCallee callee = module_.getOrInsertFunction(name, type);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    if (name == "texrt_alloc") fn->addRetAttr(llvm::Attribute::NoAlias);
  }
  return callee;
}

void CodeGen::create_alias_scopes(const LoweredFunc& func) {
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

void CodeGen::attach_alias_metadata(llvm::Instruction* inst, const BufferNode* buffer) {
  auto it = alias_metadata_.find(buffer);
  if (it == alias_metadata_.end()) return;
  inst->setMetadata(llvm::LLVMContext::MD_alias_scope, it->second.scope);
  inst->setMetadata(llvm::LLVMContext::MD_noalias, it->second.noalias);
}

const BufferValue& CodeGen::buffer_value(const Buffer& buffer) {
  auto it = buffers_.find(buffer.get());
  TEXC_CHECK(it != buffers_.end()) << "buffer '" << buffer->name << "' is used outside its allocation in op "
                                   << op_name_;
  return it->second;
}

llvm::AllocaInst* CodeGen::entry_alloca(llvm::Type* type, int64_t align, const std::string& name) {
  llvm::BasicBlock& entry = function_->getEntryBlock();
  llvm::IRBuilder<> entry_builder(&entry, entry.begin());
  llvm::AllocaInst* alloca = entry_builder.CreateAlloca(type, nullptr, name);
  alloca->setAlignment(llvm::Align(uint64_t(align)));
  return alloca;
}

int64_t CodeGen::vector_alignment(const BufferValue& buf, const Expr& base_index, Type element) {
  return provable_alignment(modulus_remainder(base_index, var_moduli_), element_bytes(element), buf.align);
}

void CodeGen::emit_op(const LoweredFunc& func) {
  op_name_ = func.name;
  closure_count_ = 0;
  std::vector<llvm::Type*> params(func.args.size(), ptr_type_);
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
  TEXC_CHECK(!module_.getFunction(func.name)) << "two ops named " << func.name;
  llvm::Function* fn = create_function(type, llvm::GlobalValue::ExternalLinkage, func.name);
  create_alias_scopes(func);

  function_ = fn;
  vars_.clear();
  var_moduli_.clear();
  buffers_.clear();
  vector_mask_ = nullptr;
  for (size_t i = 0; i < func.args.size(); ++i) {
    const Buffer& buffer = func.args[i];
    llvm::Argument* arg = fn->getArg(unsigned(i));
    arg->setName(buffer->name);
    arg->addAttr(llvm::Attribute::NoAlias);
    arg->addAttr(llvm::Attribute::NoCapture);
    arg->addAttr(llvm::Attribute::NoUndef);
    if (buffer->role == BufferRole::Input) arg->addAttr(llvm::Attribute::ReadOnly);
    if (auto elements = constant_size_of(buffer); elements && *elements > 0)
      arg->addAttr(llvm::Attribute::getWithDereferenceableBytes(context_, uint64_t(*elements * element_bytes(buffer->dtype))));
    // The caller only promises the element type's natural alignment.
    buffers_[buffer.get()] = {arg, element_bytes(buffer->dtype)};
  }
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", fn));
  emit(func.body);
  b_.CreateRetVoid();
  if (options_.packed_wrappers) emit_packed_wrapper(func, fn);
}

void CodeGen::emit_packed_wrapper(const LoweredFunc& func, llvm::Function* op_function) {
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_type_}, false);
  llvm::Function* wrapper = create_function(type, llvm::GlobalValue::ExternalLinkage, func.name + ".packed");
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", wrapper));
  std::vector<Value*> args;
  for (size_t i = 0; i < func.args.size(); ++i)
    args.push_back(b_.CreateLoad(ptr_type_, b_.CreateConstGEP1_64(ptr_type_, wrapper->getArg(0), i)));
  b_.CreateCall(op_function, args);
  b_.CreateRetVoid();
}

// =============================================================================================
// Expressions

Value* CodeGen::emit(const Expr& e) {
  TEXC_CHECK(e) << "null expression in op " << op_name_;
  switch (e->kind) {
    case ExprKind::IntImm: return llvm::ConstantInt::get(value_type(e->type), uint64_t(e->as<IntImm>()->value), true);
    case ExprKind::FloatImm: return llvm::ConstantFP::get(value_type(e->type), e->as<FloatImm>()->value);
    case ExprKind::Variable: {
      auto it = vars_.find(e->as<Variable>());
      TEXC_CHECK(it != vars_.end()) << "variable '" << e->as<Variable>()->name << "' is not bound in op " << op_name_;
      return it->second;
    }
    case ExprKind::Binary: return emit_binary(e->as<Binary>());
    case ExprKind::Not: return b_.CreateNot(emit(e->as<Not>()->a));
    case ExprKind::Select: return emit_select(e->as<Select>());
    case ExprKind::Cast: return emit_cast(e->as<Cast>());
    case ExprKind::Call: return emit_call(e->as<Call>(), false);
    case ExprKind::Load: return emit_load(e->as<Load>());
    case ExprKind::Ramp: return emit_ramp(e->as<Ramp>());
    case ExprKind::Broadcast: {
      const Broadcast* op = e->as<Broadcast>();
      return b_.CreateVectorSplat(unsigned(op->lanes), emit(op->value));
    }
    case ExprKind::Let: return emit_let(e->as<Let>());
    case ExprKind::Reduce: TEXC_UNREACHABLE() << "Reduce in the lowered op " << op_name_;
  }
  TEXC_UNREACHABLE();
}

Value* CodeGen::emit_index(const Expr& e) {
  Value* v = emit(e);
  TEXC_CHECK(e->type.is_integer()) << "index of type " << e->type.str();
  llvm::Type* target = e->type.is_vector() ? llvm::FixedVectorType::get(i64_, e->type.lanes) : static_cast<llvm::Type*>(i64_);
  return b_.CreateIntCast(v, target, e->type.is_int());
}

Value* CodeGen::emit_binary(const Binary* op) {
  Type t = op->a->type;
  Value* a = emit(op->a);
  Value* b = emit(op->b);
  bool is_float = t.is_float();
  bool no_signed_wrap = t.is_int() && t.bits == 64;  // index arithmetic
  switch (op->op) {
    case BinaryOp::Add: return is_float ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b, "", false, no_signed_wrap);
    case BinaryOp::Sub: return is_float ? b_.CreateFSub(a, b) : b_.CreateSub(a, b, "", false, no_signed_wrap);
    case BinaryOp::Mul: return is_float ? b_.CreateFMul(a, b) : b_.CreateMul(a, b, "", false, no_signed_wrap);
    case BinaryOp::Div:
      if (is_float) return b_.CreateFDiv(a, b);
      return emit_int_div_mod(op, a, b);
    case BinaryOp::Mod:
      if (is_float) return emit_float_mod(a, b);
      return emit_int_div_mod(op, a, b);
    case BinaryOp::Min:
    case BinaryOp::Max: {
      bool is_min = op->op == BinaryOp::Min;
      if (is_float) {  // std::min / std::max, except that a NaN operand gives NaN (as the interpreters do)
        Value* ordered_take_b = is_min ? b_.CreateFCmpOLT(b, a) : b_.CreateFCmpOLT(a, b);
        Value* take_b = b_.CreateOr(ordered_take_b, b_.CreateFCmpUNO(b, b));
        return b_.CreateSelect(take_b, b, a);
      }
      if (t.is_bool()) return is_min ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
      llvm::Intrinsic::ID id = t.is_int() ? (is_min ? llvm::Intrinsic::smin : llvm::Intrinsic::smax)
                                          : (is_min ? llvm::Intrinsic::umin : llvm::Intrinsic::umax);
      return b_.CreateBinaryIntrinsic(id, a, b);
    }
    case BinaryOp::Shl:
    case BinaryOp::Shr: return emit_shift(op, a, b);
    case BinaryOp::EQ:
    case BinaryOp::NE:
    case BinaryOp::LT:
    case BinaryOp::LE:
    case BinaryOp::GT:
    case BinaryOp::GE: return emit_compare(op->op, t, a, b);
    case BinaryOp::And: return b_.CreateAnd(a, b);
    case BinaryOp::Or: return b_.CreateOr(a, b);
  }
  TEXC_UNREACHABLE();
}

Value* CodeGen::emit_compare(BinaryOp op, Type t, Value* a, Value* b) {
  using P = llvm::CmpInst::Predicate;
  if (t.is_float()) {
    switch (op) {
      case BinaryOp::EQ: return b_.CreateFCmp(P::FCMP_OEQ, a, b);
      case BinaryOp::NE: return b_.CreateFCmp(P::FCMP_UNE, a, b);
      case BinaryOp::LT: return b_.CreateFCmp(P::FCMP_OLT, a, b);
      case BinaryOp::LE: return b_.CreateFCmp(P::FCMP_OLE, a, b);
      case BinaryOp::GT: return b_.CreateFCmp(P::FCMP_OGT, a, b);
      case BinaryOp::GE: return b_.CreateFCmp(P::FCMP_OGE, a, b);
      default: break;
    }
  }
  bool is_signed = t.is_int();
  switch (op) {
    case BinaryOp::EQ: return b_.CreateICmp(P::ICMP_EQ, a, b);
    case BinaryOp::NE: return b_.CreateICmp(P::ICMP_NE, a, b);
    case BinaryOp::LT: return b_.CreateICmp(is_signed ? P::ICMP_SLT : P::ICMP_ULT, a, b);
    case BinaryOp::LE: return b_.CreateICmp(is_signed ? P::ICMP_SLE : P::ICMP_ULE, a, b);
    case BinaryOp::GT: return b_.CreateICmp(is_signed ? P::ICMP_SGT : P::ICMP_UGT, a, b);
    case BinaryOp::GE: return b_.CreateICmp(is_signed ? P::ICMP_SGE : P::ICMP_UGE, a, b);
    default: break;
  }
  TEXC_UNREACHABLE();
}

// Floor division and modulo. Power-of-two divisors become an arithmetic shift / a mask (exact floor
// semantics for every dividend); other constants a truncating division with the floor correction;
// variable divisors are guarded so that x / 0 == 0, x % 0 == 0 and MIN / -1 does not trap.
Value* CodeGen::emit_int_div_mod(const Binary* op, Value* a, Value* b) {
  Type t = op->a->type;
  bool is_div = op->op == BinaryOp::Div;
  llvm::Type* type = a->getType();
  auto constant = [&](int64_t v) { return llvm::ConstantInt::get(type, uint64_t(v), true); };
  Value* zero = zero_of(type);

  if (!t.is_int()) {  // unsigned (and bool): truncation is floor
    if (auto c = constant_int_operand(op->b)) {
      if (*c == 0) return zero;
      return is_div ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
    }
    Value* is_zero = b_.CreateICmpEQ(b, zero);
    Value* safe = b_.CreateSelect(is_zero, constant(1), b);
    Value* result = is_div ? b_.CreateUDiv(a, safe) : b_.CreateURem(a, safe);
    return b_.CreateSelect(is_zero, zero, result);
  }

  if (auto c = constant_int_operand(op->b)) {
    if (*c == 0) return zero;
    if (*c > 0 && (*c & (*c - 1)) == 0) {
      int shift = __builtin_ctzll(uint64_t(*c));
      return is_div ? b_.CreateAShr(a, constant(shift)) : b_.CreateAnd(a, constant(*c - 1));
    }
    if (*c == -1) return is_div ? b_.CreateNeg(a) : zero;
    Value* q = b_.CreateSDiv(a, b);
    Value* r = b_.CreateSRem(a, b);
    // r != 0 and sign(r) != sign(b): step toward -inf.
    Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, b), zero));
    if (is_div) return b_.CreateSub(q, b_.CreateZExt(adjust, type));
    return b_.CreateAdd(r, b_.CreateSelect(adjust, b, zero));
  }

  Value* is_zero = b_.CreateICmpEQ(b, zero);
  Value* is_minus_one = b_.CreateICmpEQ(b, constant(-1));
  Value* special = b_.CreateOr(is_zero, is_minus_one);
  Value* safe = b_.CreateSelect(special, constant(1), b);
  Value* q = b_.CreateSDiv(a, safe);
  Value* r = b_.CreateSRem(a, safe);
  Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, safe), zero));
  if (is_div) {
    Value* floor_q = b_.CreateSub(q, b_.CreateZExt(adjust, type));
    return b_.CreateSelect(is_zero, zero, b_.CreateSelect(is_minus_one, b_.CreateNeg(a), floor_q));
  }
  Value* floor_r = b_.CreateAdd(r, b_.CreateSelect(adjust, safe, zero));
  return b_.CreateSelect(special, zero, floor_r);
}

// a - floor(a / b) * b, the interpreters' definition.
Value* CodeGen::emit_float_mod(Value* a, Value* b) {
  Value* quotient = b_.CreateIntrinsic(llvm::Intrinsic::floor, {a->getType()}, {b_.CreateFDiv(a, b)});
  return b_.CreateFSub(a, b_.CreateFMul(quotient, b));
}

// Shift amounts outside [0, bits) shift everything out: << and unsigned >> give 0, signed >> gives
// the sign (LLVM would give poison). Constant in-range amounts need no guard.
Value* CodeGen::emit_shift(const Binary* op, Value* a, Value* b) {
  Type t = op->a->type;
  bool left = op->op == BinaryOp::Shl;
  auto c = constant_int_operand(op->b);
  bool in_range = c && *c >= 0 && *c < t.bits;
  if (left || !t.is_int()) {
    Value* shifted = left ? b_.CreateShl(a, b) : b_.CreateLShr(a, b);
    if (in_range) return shifted;
    Value* out_of_range = b_.CreateICmpUGE(b, llvm::ConstantInt::get(a->getType(), uint64_t(t.bits)));
    return b_.CreateSelect(out_of_range, zero_of(a->getType()), b_.CreateFreeze(shifted));
  }
  if (in_range) return b_.CreateAShr(a, b);
  Value* amount = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b, llvm::ConstantInt::get(a->getType(), uint64_t(t.bits - 1)));
  return b_.CreateAShr(a, amount);
}

Value* CodeGen::emit_cast(const Cast* op) {
  Type from = op->value->type;
  Type to = op->type;
  Value* v = emit(op->value);
  if (from == to) return v;
  llvm::Type* target = value_type(to);
  if (to.is_bool()) {
    if (from.is_float()) return b_.CreateFCmpUNE(v, zero_of(v->getType()));
    return b_.CreateICmpNE(v, zero_of(v->getType()));
  }
  if (from.is_bool()) return to.is_float() ? b_.CreateUIToFP(v, target) : b_.CreateZExt(v, target);
  if (from.is_float() && to.is_float()) return b_.CreateFPCast(v, target);
  if (from.is_float()) return emit_float_to_int(v, to);
  if (to.is_float()) return from.is_int() ? b_.CreateSIToFP(v, target) : b_.CreateUIToFP(v, target);
  return b_.CreateIntCast(v, target, from.is_int());
}

// As the interpreters do: truncate toward zero, saturate to the 64-bit range (NaN -> 0), then wrap to
// the target width. LLVM's plain fptosi would give poison for values out of the target's range.
Value* CodeGen::emit_float_to_int(Value* v, Type to) {
  llvm::Type* wide = to.is_vector() ? llvm::FixedVectorType::get(i64_, to.lanes) : static_cast<llvm::Type*>(i64_);
  llvm::Intrinsic::ID saturating = to.is_uint() && to.bits == 64 ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
  Value* wide_value = b_.CreateIntrinsic(saturating, {wide, v->getType()}, {v});
  return b_.CreateTrunc(wide_value, value_type(to));
}

Value* CodeGen::emit_ramp(const Ramp* op) {
  llvm::Type* scalar = value_type(op->base->type);
  Value* base = b_.CreateVectorSplat(unsigned(op->lanes), emit(op->base));
  Value* stride = b_.CreateVectorSplat(unsigned(op->lanes), emit(op->stride));
  std::vector<llvm::Constant*> steps;
  for (int i = 0; i < op->lanes; ++i) steps.push_back(llvm::ConstantInt::get(scalar, uint64_t(i)));
  bool nsw = op->base->type.is_int() && op->base->type.bits == 64;
  return b_.CreateAdd(base, b_.CreateMul(stride, llvm::ConstantVector::get(steps), "", false, nsw), "", false, nsw);
}

Value* CodeGen::emit_let(const Let* op) {
  Value* value = emit(op->value);
  std::optional<ModulusRemainder> modulus;
  if (op->value->type.is_integer() && op->value->type.is_scalar()) modulus = modulus_remainder(op->value, var_moduli_);
  value->setName(op->var->name);
  ScopedVar bind(*this, op->var.get(), value, modulus);
  return emit(op->body);
}

Value* CodeGen::guarded_by_any_active_lane(llvm::Type* type, const std::function<Value*()>& compute) {
  Value* any_active = b_.CreateOrReduce(vector_mask_);
  llvm::BasicBlock* before = b_.GetInsertBlock();
  llvm::BasicBlock* active = llvm::BasicBlock::Create(context_, "any_lane", function_);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(context_, "any_lane_merge", function_);
  b_.CreateCondBr(any_active, active, merge);
  b_.SetInsertPoint(active);
  Value* saved_mask = vector_mask_;
  vector_mask_ = nullptr;  // a scalar computation: it runs (once) when any lane needs it
  Value* v = compute();
  vector_mask_ = saved_mask;
  llvm::BasicBlock* active_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(type, 2);
  phi->addIncoming(zero_of(type), before);
  phi->addIncoming(v, active_end);
  return phi;
}

Value* CodeGen::emit_select(const Select* op) {
  if (is_safe_to_speculate(op->true_value) && is_safe_to_speculate(op->false_value))
    return b_.CreateSelect(emit(op->cond), emit(op->true_value), emit(op->false_value));

  llvm::Type* type = value_type(op->type);
  if (op->cond->type.is_scalar()) {  // branches: only the chosen side runs
    Value* cond = emit(op->cond);
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(context_, "select_true", function_);
    llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(context_, "select_false", function_);
    llvm::BasicBlock* merge_bb = llvm::BasicBlock::Create(context_, "select_merge", function_);
    b_.CreateCondBr(cond, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    Value* t = emit(op->true_value);
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge_bb);
    b_.SetInsertPoint(else_bb);
    Value* f = emit(op->false_value);
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(merge_bb);
    b_.SetInsertPoint(merge_bb);
    llvm::PHINode* phi = b_.CreatePHI(type, 2);
    phi->addIncoming(t, then_end);
    phi->addIncoming(f, else_end);
    return phi;
  }

  // Vector condition: each side runs with its lanes as the mask of its loads.
  Value* cond = emit(op->cond);
  Value* outer = vector_mask_;
  Value* true_mask = outer ? b_.CreateAnd(outer, cond) : cond;
  Value* false_mask = outer ? b_.CreateAnd(outer, b_.CreateNot(cond)) : b_.CreateNot(cond);
  vector_mask_ = true_mask;
  Value* t = emit(op->true_value);
  vector_mask_ = false_mask;
  Value* f = emit(op->false_value);
  vector_mask_ = outer;
  return b_.CreateSelect(cond, t, f);
}

Value* CodeGen::element_pointer(const Load* load) {
  TEXC_CHECK(load->indices.size() == 1 && load->type.is_scalar())
      << "address_of needs a scalar load of a flattened buffer ('" << load->buffer->name << "')";
  const BufferValue& buf = buffer_value(load->buffer);
  return b_.CreateInBoundsGEP(memory_type(load->buffer->dtype), buf.ptr, emit_index(load->indices[0]));
}

Value* CodeGen::emit_call(const Call* op, bool as_statement) {
  switch (op->call_kind) {
    case CallKind::Math: {
      std::vector<Value*> args;
      for (const Expr& a : op->args) args.push_back(emit(a));
      return emit_math_function(b_, op->name, args, op->type);
    }
    case CallKind::Intrinsic:
      if (is_intrinsic_call(op, Intrinsic::Likely)) return emit(op->args[0]);
      if (is_intrinsic_call(op, Intrinsic::AddressOf)) {
        TEXC_CHECK(op->args[0]->as<Load>()) << "address_of takes one Load";
        return element_pointer(op->args[0]->as<Load>());
      }
      TEXC_UNREACHABLE() << "intrinsic '" << op->name << "' has no CPU code generation";
    case CallKind::Extern: {
      std::vector<Value*> args;
      std::vector<llvm::Type*> arg_types;
      for (const Expr& a : op->args) {
        args.push_back(emit(a));
        arg_types.push_back(args.back()->getType());
      }
      llvm::Type* result = as_statement ? b_.getVoidTy() : value_type(op->type);
      llvm::FunctionCallee callee = module_.getOrInsertFunction(op->name, llvm::FunctionType::get(result, arg_types, false));
      return b_.CreateCall(callee, args);
    }
  }
  TEXC_UNREACHABLE();
}

Value* CodeGen::emit_load(const Load* op) {
  TEXC_CHECK(op->indices.size() == 1) << "load of '" << op->buffer->name << "' with " << op->indices.size()
                                      << " indices: buffers must be flattened";
  Type elem = op->buffer->dtype;
  llvm::Type* mem = memory_type(op->type);
  llvm::Type* elem_mem = memory_type(elem);
  const Expr& index = op->indices[0];
  int lanes = op->type.lanes;
  llvm::Instruction* inst = nullptr;
  Value* raw = nullptr;

  auto scalar_load = [&](const Expr& scalar_index) -> Value* {
    const BufferValue& buf = buffer_value(op->buffer);
    Value* ptr = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(scalar_index));
    llvm::LoadInst* load = b_.CreateAlignedLoad(elem_mem, ptr, llvm::Align(uint64_t(element_bytes(elem))));
    attach_alias_metadata(load, op->buffer.get());
    return load;
  };

  bool mask_fits = vector_mask_ && llvm::cast<llvm::FixedVectorType>(vector_mask_->getType())->getNumElements() == unsigned(lanes);
  if (lanes == 1 || index->as<Broadcast>()) {
    const Expr& scalar_index = lanes == 1 ? index : index->as<Broadcast>()->value;
    raw = vector_mask_ ? guarded_by_any_active_lane(elem_mem, [&] { return scalar_load(scalar_index); })
                       : scalar_load(scalar_index);
    if (lanes > 1) raw = b_.CreateVectorSplat(unsigned(lanes), raw);
  } else if (vector_mask_ && !mask_fits) {
    raw = guarded_by_any_active_lane(mem, [&] { return emit_load(op); });
    return raw;  // the inner emit_load did the conversion to bool already
  } else {
    const BufferValue& buf = buffer_value(op->buffer);
    const Ramp* ramp = index->as<Ramp>();
    if (ramp && is_const_int(ramp->stride, 1)) {
      Value* ptr = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(ramp->base));
      llvm::Align align(uint64_t(vector_alignment(buf, ramp->base, elem)));
      if (vector_mask_) {
        inst = b_.CreateMaskedLoad(mem, ptr, align, vector_mask_, zero_of(mem));
      } else if (pad_to_masked(lanes, elem) && read_only_operand(*op->buffer)) {
        int padded = int(llvm::PowerOf2Ceil(uint64_t(lanes)));
        llvm::Type* wide = llvm::FixedVectorType::get(elem_mem, unsigned(padded));
        inst = b_.CreateMaskedLoad(wide, ptr, align, padded_lane_mask(lanes), llvm::PoisonValue::get(wide));
        attach_alias_metadata(inst, op->buffer.get());
        raw = b_.CreateShuffleVector(inst, shuffle_indices(lanes, lanes));
        if (elem.is_bool()) return b_.CreateICmpNE(raw, zero_of(raw->getType()));
        return raw;
      } else {
        inst = b_.CreateAlignedLoad(mem, ptr, align);
      }
    } else {
      Value* ptrs = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(index));
      Value* mask = vector_mask_ ? vector_mask_ : llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b_.getInt1Ty(), lanes));
      inst = b_.CreateMaskedGather(mem, ptrs, llvm::Align(uint64_t(element_bytes(elem))), mask, zero_of(mem));
    }
    attach_alias_metadata(inst, op->buffer.get());
    raw = inst;
  }
  if (elem.is_bool()) return b_.CreateICmpNE(raw, zero_of(raw->getType()));
  return raw;
}

// =============================================================================================
// Statements

void CodeGen::emit(const Stmt& s) {
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
    case StmtKind::Block: TEXC_UNREACHABLE() << "Block in the lowered op " << op_name_ << " (lower_blocks did not run)";
  }
  TEXC_UNREACHABLE();
}

void CodeGen::emit_store(const Store* op) {
  TEXC_CHECK(op->indices.size() == 1) << "store to '" << op->buffer->name << "' with " << op->indices.size()
                                      << " indices: buffers must be flattened";
  Type elem = op->buffer->dtype;
  llvm::Type* elem_mem = memory_type(elem);
  Value* value = emit(op->value);
  if (elem.is_bool()) value = b_.CreateZExt(value, memory_type(op->value->type));
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
    inst = b_.CreateAlignedStore(value, ptr, llvm::Align(uint64_t(vector_alignment(buf, ramp->base, elem))));
  } else {
    TEXC_CHECK(index->type.lanes == lanes) << "store to '" << op->buffer->name << "': index and value lanes differ";
    Value* ptrs = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(index));
    Value* all = llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b_.getInt1Ty(), lanes));
    inst = b_.CreateMaskedScatter(value, ptrs, llvm::Align(uint64_t(element_bytes(elem))), all);
  }
  attach_alias_metadata(inst, op->buffer.get());
}

void CodeGen::emit_for(const For* op) {
  switch (op->for_kind) {
    case ForKind::Serial: return emit_serial_loop(op, false);
    case ForKind::Vectorized: return emit_serial_loop(op, true);  // lowering could not make vector nodes
    case ForKind::Unrolled: {
      int64_t extent;
      if (is_const_int(op->extent, &extent)) return emit_unrolled_loop(op, extent);
      return emit_serial_loop(op, false);
    }
    case ForKind::Parallel: return emit_parallel_loop(op);
    case ForKind::ThreadBound:
      TEXC_UNREACHABLE() << "loop '" << op->var->name << "' bound to " << op->thread_tag << " in CPU op " << op_name_;
    case ForKind::Tensorized:
      TEXC_UNREACHABLE() << "tensorized loop '" << op->var->name << "' was not replaced in op " << op_name_;
  }
}

void CodeGen::emit_serial_loop(const For* op, bool vectorize_hint) {
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

void CodeGen::emit_unrolled_loop(const For* op, int64_t extent) {
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

// The body becomes `void op.par.N(i64 task, ptr closure)`: the closure holds the loop's min and every
// variable and buffer pointer of the enclosing scope that the body uses.
void CodeGen::emit_parallel_loop(const For* op) {
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

void CodeGen::emit_allocate(const Allocate* op) {
  const Buffer& buffer = op->buffer;
  int64_t elem_bytes = element_bytes(buffer->dtype);
  std::optional<int64_t> elements = constant_size_of(buffer);
  std::optional<int64_t> bytes;
  if (elements && *elements >= 0 && *elements <= (int64_t(1) << 40)) bytes = *elements * elem_bytes;
  int64_t stack_limit = buffer->scope == MemScope::Local ? kMaxStackBytesLocal : kMaxStackBytesGlobal;

  Value* ptr;
  Value* heap_ptr = nullptr;
  llvm::AllocaInst* stack = nullptr;
  if (bytes && *bytes <= stack_limit) {
    stack = entry_alloca(llvm::ArrayType::get(b_.getInt8Ty(), uint64_t(std::max<int64_t>(*bytes, 1))),
                         kOwnAllocationAlignment, buffer->name);
    b_.CreateLifetimeStart(stack, b_.getInt64(uint64_t(std::max<int64_t>(*bytes, 1))));
    ptr = stack;
  } else {
    Value* size = b_.getInt64(uint64_t(elem_bytes));
    for (const Expr& extent : buffer->shape) size = b_.CreateMul(size, emit_index(extent), "", false, true);
    heap_ptr = b_.CreateCall(runtime_function("texrt_alloc"), {size}, buffer->name);
    ptr = heap_ptr;
  }

  auto previous = buffers_.find(buffer.get());
  std::optional<BufferValue> outer;
  if (previous != buffers_.end()) outer = previous->second;
  buffers_[buffer.get()] = {ptr, kOwnAllocationAlignment};
  emit(op->body);
  if (outer) buffers_[buffer.get()] = *outer;
  else buffers_.erase(buffer.get());

  if (stack) b_.CreateLifetimeEnd(stack, b_.getInt64(uint64_t(std::max<int64_t>(*bytes, 1))));
  if (heap_ptr) b_.CreateCall(runtime_function("texrt_free"), {heap_ptr});
}

void CodeGen::emit_if(const IfThenElse* op) {
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

}  // namespace

std::unique_ptr<llvm::Module> codegen_llvm(const std::vector<LoweredFunc>& funcs, llvm::LLVMContext& context,
                                           llvm::TargetMachine& target_machine, const CodeGenOptions& options) {
  auto module = std::make_unique<llvm::Module>(funcs.empty() ? "texc" : funcs[0].name, context);
  module->setTargetTriple(target_machine.getTargetTriple().str());
  module->setDataLayout(target_machine.createDataLayout());
  CodeGen codegen(context, *module, target_machine, options);
  for (const LoweredFunc& func : funcs) codegen.emit_op(func);

  std::string errors;
  llvm::raw_string_ostream os(errors);
  bool broken = llvm::verifyModule(*module, &os);
  TEXC_CHECK(!broken) << "code generation produced invalid LLVM IR:\n" << errors;
  return module;
}

}  // namespace texc
