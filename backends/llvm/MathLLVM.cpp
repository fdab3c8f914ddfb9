#include "backends/llvm/MathLLVM.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "ir/Diagnostics.h"

namespace texc {

namespace {

using llvm::Value;

Value* splat_f(llvm::IRBuilder<>& b, llvm::Type* type, double v) { return llvm::ConstantFP::get(type, v); }

Value* call_intrinsic(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, const std::vector<Value*>& args) {
  return b.CreateIntrinsic(id, {args[0]->getType()}, args);
}

/// A libm function (e.g. "tanhf") of one or two float arguments, applied per lane for vectors.
Value* call_libm(llvm::IRBuilder<>& b, const std::string& name, const std::vector<Value*>& args) {
  llvm::Type* type = args[0]->getType();
  llvm::Type* scalar_type = type->getScalarType();
  llvm::Module* module = b.GetInsertBlock()->getModule();
  std::vector<llvm::Type*> params(args.size(), scalar_type);
  llvm::FunctionCallee fn = module->getOrInsertFunction(name, llvm::FunctionType::get(scalar_type, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotThrow();
    f->setOnlyAccessesInaccessibleMemory();  // errno at most
  }
  auto* vector_type = llvm::dyn_cast<llvm::FixedVectorType>(type);
  if (!vector_type) return b.CreateCall(fn, args);
  Value* result = llvm::PoisonValue::get(type);
  for (unsigned lane = 0; lane < vector_type->getNumElements(); ++lane) {
    std::vector<Value*> lane_args;
    for (Value* a : args) lane_args.push_back(b.CreateExtractElement(a, uint64_t(lane)));
    result = b.CreateInsertElement(result, b.CreateCall(fn, lane_args), uint64_t(lane));
  }
  return result;
}

/// Horner evaluation of coeffs[0] * x^(n-1) + ... + coeffs[n-1].
Value* polynomial(llvm::IRBuilder<>& b, Value* x, std::initializer_list<double> coeffs) {
  llvm::Type* type = x->getType();
  Value* acc = nullptr;
  for (double c : coeffs) acc = acc ? b.CreateFAdd(b.CreateFMul(acc, x), splat_f(b, type, c)) : splat_f(b, type, c);
  return acc;
}

bool is_f32_vector(Type t) { return t.is_float() && t.bits == 32 && t.is_vector(); }

Value* emit_exp(llvm::IRBuilder<>& b, Value* x, Type t) {
  if (is_f32_vector(t)) return exp_f32_polynomial(b, x);
  return call_intrinsic(b, llvm::Intrinsic::exp, {x});
}

Value* emit_float_math(llvm::IRBuilder<>& b, const std::string& name, const std::vector<Value*>& args, Type t) {
  llvm::Type* type = args[0]->getType();
  if (name == "exp") return emit_exp(b, args[0], t);
  if (name == "log") return call_intrinsic(b, llvm::Intrinsic::log, args);
  if (name == "sqrt") return call_intrinsic(b, llvm::Intrinsic::sqrt, args);
  if (name == "abs") return call_intrinsic(b, llvm::Intrinsic::fabs, args);
  if (name == "floor") return call_intrinsic(b, llvm::Intrinsic::floor, args);
  if (name == "ceil") return call_intrinsic(b, llvm::Intrinsic::ceil, args);
  if (name == "pow") return call_intrinsic(b, llvm::Intrinsic::pow, args);
  if (name == "sigmoid") {
    Value* one = splat_f(b, type, 1.0);
    return b.CreateFDiv(one, b.CreateFAdd(one, emit_exp(b, b.CreateFNeg(args[0]), t)));
  }
  if (name == "tanh") {
    if (is_f32_vector(t)) return tanh_f32_polynomial(b, args[0]);
    return call_libm(b, t.bits == 32 ? "tanhf" : "tanh", args);
  }
  TEXC_UNREACHABLE() << "unknown math function " << name;
}

}  // namespace

/// exp on f32 (scalars or vectors): Cody-Waite reduction x = n ln2 + r, |r| <= ln2 / 2, Cephes' degree-6
/// polynomial for e^r, and the scaling by 2^n split into two factors so that n in [-150, 129] works
/// (subnormal results included).
Value* exp_f32_polynomial(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* int_type = b.getInt32Ty();
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(type)) int_type = llvm::FixedVectorType::get(int_type, vt->getNumElements());
  auto f = [&](double v) { return splat_f(b, type, v); };
  auto i = [&](int64_t v) { return llvm::ConstantInt::get(int_type, v); };
  constexpr double kOverflow = 88.72283935546875;   // above: +inf
  constexpr double kUnderflow = -103.97207641601562;  // below: 0

  Value* clamped = b.CreateIntrinsic(llvm::Intrinsic::minnum, {type}, {x, f(89.0)});
  clamped = b.CreateIntrinsic(llvm::Intrinsic::maxnum, {type}, {clamped, f(-104.0)});
  Value* n_float = b.CreateIntrinsic(llvm::Intrinsic::floor, {type},
                                     {b.CreateFAdd(b.CreateFMul(clamped, f(1.44269504088896341)), f(0.5))});
  Value* r = b.CreateFSub(clamped, b.CreateFMul(n_float, f(0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(n_float, f(-2.12194440e-4)));
  Value* p = polynomial(b, r, {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1,
                               5.0000001201E-1});
  Value* e_r = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(b.CreateFMul(p, r), r), r), f(1.0));

  Value* n = b.CreateFPToSI(n_float, int_type);
  Value* n_half = b.CreateAShr(n, i(1));
  Value* n_rest = b.CreateSub(n, n_half);
  auto power_of_two = [&](Value* k) { return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, i(127)), i(23)), type); };
  Value* result = b.CreateFMul(b.CreateFMul(e_r, power_of_two(n_half)), power_of_two(n_rest));

  result = b.CreateSelect(b.CreateFCmpOGT(x, f(kOverflow)), f(INFINITY), result);
  result = b.CreateSelect(b.CreateFCmpOLT(x, f(kUnderflow)), f(0.0), result);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

/// tanh on f32 (scalars or vectors) (Cephes tanhf): an odd polynomial for |x| < 0.625, 1 - 2 / (e^2|x| + 1) above,
/// with the sign of x.
Value* tanh_f32_polynomial(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* type = x->getType();
  auto f = [&](double v) { return splat_f(b, type, v); };
  Value* z = b.CreateIntrinsic(llvm::Intrinsic::fabs, {type}, {x});
  Value* e = exp_f32_polynomial(b, b.CreateFAdd(z, z));
  Value* large = b.CreateFSub(f(1.0), b.CreateFDiv(f(2.0), b.CreateFAdd(e, f(1.0))));
  Value* z2 = b.CreateFMul(z, z);
  Value* p = polynomial(b, z2, {-5.70498872745E-3, 2.06390887954E-2, -5.37397155531E-2, 1.33314422036E-1,
                                -3.33332819422E-1});
  Value* small = b.CreateFAdd(b.CreateFMul(b.CreateFMul(p, z2), z), z);
  Value* magnitude = b.CreateSelect(b.CreateFCmpOGE(z, f(0.625)), large, small);
  return b.CreateIntrinsic(llvm::Intrinsic::copysign, {type}, {magnitude, x});
}

Value* emit_math_function(llvm::IRBuilder<>& b, const std::string& name, const std::vector<Value*>& args, Type t) {
  size_t arity = name == "pow" ? 2 : 1;
  TEXC_CHECK(args.size() == arity) << name << " takes " << arity << " argument(s), got " << args.size();
  if (t.is_integer() || t.is_bool()) {
    TEXC_CHECK(name == "abs") << "math function " << name << " on " << t.str();
    if (t.is_int()) return b.CreateIntrinsic(llvm::Intrinsic::abs, {args[0]->getType()}, {args[0], b.getFalse()});
    return args[0];  // abs of an unsigned value or bool
  }
  TEXC_CHECK(t.is_float()) << "math function " << name << " on " << t.str();
  if (t.bits == 16) {  // computed in f32
    llvm::Type* half_type = args[0]->getType();
    llvm::Type* f32_type = b.getFloatTy();
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(half_type))
      f32_type = llvm::FixedVectorType::get(b.getFloatTy(), vt->getNumElements());
    std::vector<Value*> widened;
    for (Value* a : args) widened.push_back(b.CreateFPExt(a, f32_type));
    return b.CreateFPTrunc(emit_float_math(b, name, widened, Float(32, t.lanes)), half_type);
  }
  return emit_float_math(b, name, args, t);
}

}  // namespace texc
