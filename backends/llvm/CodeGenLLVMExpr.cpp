// CodeGenLLVM, the expressions: arithmetic with texc's semantics (floor division, guarded shifts,
// saturating float -> int casts), selects that run only the chosen side, calls, and loads (dense,
// masked, gathered). The class, its hooks and its statements: CodeGenLLVM.h, CodeGenLLVM.cpp.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <optional>

#include "backends/llvm/BFloatLLVM.h"
#include "backends/llvm/CodeGenLLVM.h"
#include "backends/llvm/MathLLVM.h"
#include "backends/llvm/TargetIntrinsicCall.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"

namespace texc {

using llvm::Value;

namespace {

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

}  // namespace

Value* CodeGenLLVM::emit(const Expr& e) {
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

Value* CodeGenLLVM::emit_index(const Expr& e) {
  Value* v = emit(e);
  TEXC_CHECK(e->type.is_integer()) << "index of type " << e->type.str();
  llvm::Type* target = e->type.is_vector() ? llvm::FixedVectorType::get(i64_, e->type.lanes) : static_cast<llvm::Type*>(i64_);
  return b_.CreateIntCast(v, target, e->type.is_int());
}

Value* CodeGenLLVM::emit_binary(const Binary* op) {
  Type t = op->a->type;
  Value* a = emit(op->a);
  Value* b = emit(op->b);
  if (t.is_bfloat()) {  // computed in f32, the result rounded back to bf16 (BFloatLLVM.h)
    Value* r = emit_binary_values(op, Float(32, t.lanes), bfloat_to_f32(b_, a), bfloat_to_f32(b_, b));
    return op->type.is_bfloat() ? f32_to_bfloat(b_, r) : r;
  }
  return emit_binary_values(op, t, a, b);
}

Value* CodeGenLLVM::emit_binary_values(const Binary* op, Type t, Value* a, Value* b) {
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

Value* CodeGenLLVM::emit_compare(BinaryOp op, Type t, Value* a, Value* b) {
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
Value* CodeGenLLVM::emit_int_div_mod(const Binary* op, Value* a, Value* b) {
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
Value* CodeGenLLVM::emit_float_mod(Value* a, Value* b) {
  Value* quotient = b_.CreateIntrinsic(llvm::Intrinsic::floor, {a->getType()}, {b_.CreateFDiv(a, b)});
  return b_.CreateFSub(a, b_.CreateFMul(quotient, b));
}

// Shift amounts outside [0, bits) shift everything out: << and unsigned >> give 0, signed >> gives
// the sign (LLVM would give poison). Constant in-range amounts need no guard.
Value* CodeGenLLVM::emit_shift(const Binary* op, Value* a, Value* b) {
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

Value* CodeGenLLVM::emit_cast(const Cast* op) { return emit_cast_value(op->value->type, op->type, emit(op->value)); }

Value* CodeGenLLVM::emit_cast_value(Type from, Type to, Value* v) {
  if (from == to) return v;
  // bf16 converts through f32 (exact one way; the other rounds once more, as the interpreters do).
  if (from.is_bfloat()) return emit_cast_value(Float(32, from.lanes), to, bfloat_to_f32(b_, v));
  if (to.is_bfloat()) return f32_to_bfloat(b_, emit_cast_value(from, Float(32, to.lanes), v));
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
Value* CodeGenLLVM::emit_float_to_int(Value* v, Type to) {
  llvm::Type* wide = to.is_vector() ? llvm::FixedVectorType::get(i64_, to.lanes) : static_cast<llvm::Type*>(i64_);
  llvm::Intrinsic::ID saturating = to.is_uint() && to.bits == 64 ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
  Value* wide_value = b_.CreateIntrinsic(saturating, {wide, v->getType()}, {v});
  return b_.CreateTrunc(wide_value, value_type(to));
}

Value* CodeGenLLVM::emit_ramp(const Ramp* op) {
  llvm::Type* scalar = value_type(op->base->type);
  Value* base = b_.CreateVectorSplat(unsigned(op->lanes), emit(op->base));
  Value* stride = b_.CreateVectorSplat(unsigned(op->lanes), emit(op->stride));
  std::vector<llvm::Constant*> steps;
  for (int i = 0; i < op->lanes; ++i) steps.push_back(llvm::ConstantInt::get(scalar, uint64_t(i)));
  bool nsw = op->base->type.is_int() && op->base->type.bits == 64;
  return b_.CreateAdd(base, b_.CreateMul(stride, llvm::ConstantVector::get(steps), "", false, nsw), "", false, nsw);
}

Value* CodeGenLLVM::emit_let(const Let* op) {
  Value* value = emit(op->value);
  std::optional<ModulusRemainder> modulus;
  if (op->value->type.is_integer() && op->value->type.is_scalar()) modulus = modulus_remainder(op->value, var_moduli_);
  value->setName(op->var->name);
  ScopedVar bind(*this, op->var.get(), value, modulus);
  return emit(op->body);
}

Value* CodeGenLLVM::guarded_by_any_active_lane(llvm::Type* type, const std::function<Value*()>& compute) {
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

Value* CodeGenLLVM::emit_select(const Select* op) {
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

Value* CodeGenLLVM::element_pointer(const Load* load) {
  TEXC_CHECK(load->indices.size() == 1 && load->type.is_scalar())
      << "address_of needs a scalar load of a flattened buffer ('" << load->buffer->name << "')";
  const BufferValue& buf = buffer_value(load->buffer);
  return b_.CreateInBoundsGEP(memory_type(load->buffer->dtype), buf.ptr, emit_index(load->indices[0]));
}

Value* CodeGenLLVM::emit_call(const Call* op, bool as_statement) {
  switch (op->call_kind) {
    case CallKind::Math: {
      std::vector<Value*> args;
      for (const Expr& a : op->args) args.push_back(emit(a));
      return emit_math(op, args);
    }
    case CallKind::Intrinsic: return emit_intrinsic(op);
    case CallKind::Extern: {
      if (op->name.rfind("llvm.", 0) == 0) {  // a `lower llvm` intrinsic: operands in (address, count) pairs
        std::vector<TargetIntrinsicOperand> operands;
        std::vector<const BufferNode*> buffers;
        for (size_t i = 0; i + 1 < op->args.size(); i += 2) {
          const Call* address = op->args[i]->as<Call>();
          int64_t count = 0;
          TEXC_CHECK(address && address->args.size() == 1 && address->args[0]->as<Load>() &&
                     is_const_int(op->args[i + 1], &count))
              << "call of " << op->name << " in op " << op_name_ << " is not (address_of, count) pairs";
          const Buffer& buffer = address->args[0]->as<Load>()->buffer;
          operands.push_back({emit(op->args[i]), memory_type(buffer->dtype), count});
          buffers.push_back(buffer.get());
        }
        for (auto [access, operand] : emit_target_intrinsic_call(b_, *module_, op->name, operands, op_name_))
          attach_alias_metadata(access, buffers[operand]);
        return zero_of(value_type(op->type));
      }
      std::vector<Value*> args;
      std::vector<llvm::Type*> arg_types;
      for (const Expr& a : op->args) {
        args.push_back(emit(a));
        arg_types.push_back(args.back()->getType());
      }
      llvm::Type* result = as_statement ? b_.getVoidTy() : value_type(op->type);
      llvm::FunctionCallee callee = module_->getOrInsertFunction(op->name, llvm::FunctionType::get(result, arg_types, false));
      return b_.CreateCall(callee, args);
    }
  }
  TEXC_UNREACHABLE();
}

Value* CodeGenLLVM::emit_math(const Call* op, const std::vector<Value*>& args) {
  return emit_math_function(b_, op->name, args, op->type);
}

// atomic_add(B[idx], x) (lower/gpu/CrossBlockReduction.h): `atomicrmw fadd` (floats) or `add`
// (integers), monotonic (CUDA's atomicAdd: relaxed), at the element's address; its value, the old
// one, is unused, so NVPTX selects `red.global.add`.
Value* CodeGenLLVM::emit_atomic_add(const Call* op) {
  const Load* load = op->args[0]->as<Load>();
  TEXC_CHECK(load && load->type.lanes == 1) << "atomic_add takes one scalar Load in op " << op_name_;
  Type t = load->buffer->dtype;
  Value* x = emit(op->args[1]);
  llvm::AtomicRMWInst* rmw = b_.CreateAtomicRMW(t.is_float() ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add,
                                                element_pointer(load), x, llvm::MaybeAlign(t.bytes()),
                                                llvm::AtomicOrdering::Monotonic);
  return rmw;
}

Value* CodeGenLLVM::emit_intrinsic(const Call* op) {
  std::optional<Intrinsic> which = intrinsic_of(op);
  TEXC_CHECK(which) << "call of unknown intrinsic '" << op->name << "' in op " << op_name_;
  if (is_value_hint(op)) return emit(op->args[0]);
  if (*which == Intrinsic::AddressOf) {
    TEXC_CHECK(op->args[0]->as<Load>()) << "address_of takes one Load";
    return element_pointer(op->args[0]->as<Load>());
  }
  if (*which == Intrinsic::Prefetch) {  // a read, locality 3 (keep in all levels), the data cache
    TEXC_CHECK(op->args[0]->as<Load>()) << "prefetch takes one Load";
    llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(module_.get(), llvm::Intrinsic::prefetch, {b_.getPtrTy()});
    const Load* load = op->args[0]->as<Load>();
    llvm::CallInst* call = b_.CreateCall(prefetch, {element_pointer(load), b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
    attach_alias_metadata(call, load->buffer.get());  // reads only its buffer: the other buffers stay promotable
    return zero_of(value_type(op->type));
  }
  if (*which == Intrinsic::AtomicAdd) return emit_atomic_add(op);
  if (intrinsic_effect(*which) == IntrinsicEffect::Barrier) {
    emit_barrier();
    return zero_of(value_type(op->type));
  }
  TEXC_UNREACHABLE() << "intrinsic '" << op->name << "' has no code generation for the target of op " << op_name_;
}

bool CodeGenLLVM::pad_load_to_masked(const Load*) const { return false; }
bool CodeGenLLVM::pad_store_to_masked(const Store*) const { return false; }
bool CodeGenLLVM::has_masked_loads(Type) const { return false; }

Value* CodeGenLLVM::masked_span_load(const Load* op, const Expr& base, int stride) {
  Type elem = op->buffer->dtype;
  int lanes = op->type.lanes;
  int wide_lanes = int(llvm::PowerOf2Ceil(uint64_t(lanes * stride)));
  llvm::Type* elem_mem = memory_type(elem);
  llvm::Type* wide = llvm::FixedVectorType::get(elem_mem, unsigned(wide_lanes));
  // Element j of the span is read when it is some lane's own (j = lane * stride) and that lane is
  // active: nothing past the last lane, between the lanes or of an inactive lane.
  Value* mask;
  if (vector_mask_) {
    std::vector<int> spread;
    for (int j = 0; j < wide_lanes; ++j)
      spread.push_back(j % stride == 0 && j / stride < lanes ? j / stride : lanes);
    mask = b_.CreateShuffleVector(vector_mask_, llvm::Constant::getNullValue(vector_mask_->getType()), spread);
  } else {
    std::vector<llvm::Constant*> own;
    for (int j = 0; j < wide_lanes; ++j) own.push_back(b_.getInt1(j % stride == 0 && j / stride < lanes));
    mask = llvm::ConstantVector::get(own);
  }
  const BufferValue& buf = buffer_value(op->buffer);
  Value* ptr = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(base));
  llvm::Align align(uint64_t(vector_alignment(buf, base, elem)));
  llvm::Instruction* load = b_.CreateMaskedLoad(wide, ptr, align, mask, llvm::PoisonValue::get(wide));
  attach_alias_metadata(load, op->buffer.get());
  std::vector<int> own_lanes;
  for (int i = 0; i < lanes; ++i) own_lanes.push_back(i * stride);
  Value* picked = b_.CreateShuffleVector(load, own_lanes);
  // Inactive lanes read nothing: they are zero, like a masked gather's.
  return vector_mask_ ? b_.CreateSelect(vector_mask_, picked, zero_of(picked->getType())) : picked;
}

Value* CodeGenLLVM::emit_load(const Load* op) {
  TEXC_CHECK(op->indices.size() == 1) << "load of '" << op->buffer->name << "' with " << op->indices.size()
                                      << " indices: buffers must be flattened";
  Type elem = op->buffer->dtype;
  llvm::Type* mem = memory_type(op->type);
  llvm::Type* elem_mem = memory_type(elem);
  int lanes = op->type.lanes;
  // An index clamped only for the lanes a vector select discards (lane_clamp, VectorizeLoops): under
  // the select's mask those lanes read nothing, so the index as written is loaded (a dense or
  // strided ramp stays one); elsewhere the clamped one.
  if (const Call* mark = op->indices[0]->as<Call>(); mark && is_intrinsic_call(mark, Intrinsic::LaneClamp)) {
    bool masked = vector_mask_ && lanes > 1 &&
                  llvm::cast<llvm::FixedVectorType>(vector_mask_->getType())->getNumElements() == unsigned(lanes);
    Expr index = masked ? mark->args[1] : mark->args[0];
    Expr load = Load::make(op->buffer, {index});
    return emit_load(load->as<Load>());
  }
  const Expr& index = op->indices[0];
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
    raw = guarded_by_any_active_lane(value_type(op->type), [&] { return emit_load(op); });
    return raw;  // the inner emit_load did the conversion to bool already
  } else {
    const BufferValue& buf = buffer_value(op->buffer);
    const Ramp* ramp = index->as<Ramp>();
    if (ramp && is_const_int(ramp->stride, 1) && !vector_mask_ && pad_load_to_masked(op)) {
      raw = masked_span_load(op, ramp->base, 1);
    } else if (ramp && is_const_int(ramp->stride, 1)) {
      Value* ptr = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(ramp->base));
      llvm::Align align(uint64_t(vector_alignment(buf, ramp->base, elem)));
      if (vector_mask_) inst = b_.CreateMaskedLoad(mem, ptr, align, vector_mask_, zero_of(mem));
      else inst = b_.CreateAlignedLoad(mem, ptr, align);
    } else if (int64_t stride = 0; ramp && is_const_int(ramp->stride, &stride) && stride >= 2 && stride <= 4 &&
                                   !elem.is_bool() && has_masked_loads(elem)) {
      raw = masked_span_load(op, ramp->base, int(stride));
    } else {
      Value* ptrs = b_.CreateInBoundsGEP(elem_mem, buf.ptr, emit_index(index));
      Value* mask = vector_mask_ ? vector_mask_ : llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b_.getInt1Ty(), lanes));
      inst = b_.CreateMaskedGather(mem, ptrs, llvm::Align(uint64_t(element_bytes(elem))), mask, zero_of(mem));
    }
    if (inst) {
      attach_alias_metadata(inst, op->buffer.get());
      raw = inst;
    }
  }
  if (elem.is_bool()) return b_.CreateICmpNE(raw, zero_of(raw->getType()));
  if (elem.is_bfloat()) return b_.CreateBitCast(raw, value_type(op->type));
  return raw;
}

}  // namespace texc
