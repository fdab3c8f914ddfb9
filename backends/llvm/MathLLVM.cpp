#include "backends/llvm/MathLLVM.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "backends/llvm/BFloatLLVM.h"
#include "ir/Diagnostics.h"
#include "ir/MathFunctions.h"

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
  if (name == "exp2") return call_intrinsic(b, llvm::Intrinsic::exp2, args);
  if (name == "log2") return call_intrinsic(b, llvm::Intrinsic::log2, args);
  if (name == "sin") return call_intrinsic(b, llvm::Intrinsic::sin, args);
  if (name == "cos") return call_intrinsic(b, llvm::Intrinsic::cos, args);
  if (name == "round") return call_intrinsic(b, llvm::Intrinsic::round, args);  // halves away from zero
  if (name == "trunc") return call_intrinsic(b, llvm::Intrinsic::trunc, args);
  if (name == "fmod") return b.CreateFRem(args[0], args[1]);  // C's fmod: the sign of the dividend
  if (name == "rsqrt") return b.CreateFDiv(splat_f(b, type, 1.0), call_intrinsic(b, llvm::Intrinsic::sqrt, args));
  if (name == "erf" && is_f32_vector(t)) return erf_f32_polynomial(b, args[0]);
  for (const char* libm : {"erf", "erfc", "log1p", "expm1", "atan2"})
    if (name == libm) return call_libm(b, t.bits == 32 ? name + "f" : name, args);
  TEXC_UNREACHABLE() << "unknown math function " << name;
}

/// The bits of an IEEE floating-point type that exp's last step needs, and where exp leaves its range.
struct ExpFormat {
  int64_t exponent_bias, mantissa_bits;
  double overflow, underflow;  // e^x is +inf above overflow, 0 below underflow
};

/// exp's last step, for f32 and f64 alike: e^x = e^r 2^n, the scaling by 2^n split into two factors
/// so that a subnormal result is still right; +inf past the overflow, 0 past the underflow, and a
/// NaN x returned as it is. `int_type` is the integer type (or vector) of the float's width.
Value* scale_by_power_of_two(llvm::IRBuilder<>& b, Value* x, Value* e_r, Value* n_float, llvm::Type* int_type,
                             const ExpFormat& format) {
  llvm::Type* type = x->getType();
  auto f = [&](double v) { return splat_f(b, type, v); };
  auto i = [&](int64_t v) { return llvm::ConstantInt::get(int_type, uint64_t(v)); };
  Value* n = b.CreateFPToSI(n_float, int_type);
  Value* n_half = b.CreateAShr(n, i(1));
  Value* n_rest = b.CreateSub(n, n_half);
  auto power_of_two = [&](Value* k) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, i(format.exponent_bias)), i(format.mantissa_bits)), type);
  };
  Value* result = b.CreateFMul(b.CreateFMul(e_r, power_of_two(n_half)), power_of_two(n_rest));
  result = b.CreateSelect(b.CreateFCmpOGT(x, f(format.overflow)), f(INFINITY), result);
  result = b.CreateSelect(b.CreateFCmpOLT(x, f(format.underflow)), f(0.0), result);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
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

  return scale_by_power_of_two(b, x, e_r, n_float, int_type, {127, 23, kOverflow, kUnderflow});
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

/// erf on f32 (scalars or vectors), odd in x. |x| < 0.9: |x| + |x| R(x^2), R a degree-6 polynomial
/// (Chebyshev interpolation of erf(a)/a - 1 in a^2). 0.9 <= |x|: 1 - e^-x^2 Q(u), Q a degree-11
/// polynomial of erfc(a) e^(a^2) on [0.9, 4] in u = (2a - 4.9) / 3.1, and e^-x^2 as e^-hi e^-lo with
/// hi = a^2 exact (a cut to its upper 12 bits) so that x^2's rounding does not reach the result.
/// |x| is clamped to 4, where erf is 1 in f32. Within 2 ulp; NaN propagates, erf(-0) = -0.
Value* erf_f32_polynomial(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* int_type = b.getInt32Ty();
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(type)) int_type = llvm::FixedVectorType::get(int_type, vt->getNumElements());
  auto f = [&](double v) { return splat_f(b, type, v); };
  Value* a = b.CreateIntrinsic(llvm::Intrinsic::fabs, {type}, {x});
  Value* t = b.CreateFMul(a, a);
  Value* r_small = polynomial(b, t, {8.5294013233847592e-05, -0.00081796321810237984, 0.0052042266937649133,
                                     -0.026860664791136277, 0.11283718049594003, -0.37612635193967834,
                                     0.1283791667892224});
  Value* small = b.CreateFAdd(a, b.CreateFMul(a, r_small));

  Value* clamped = b.CreateIntrinsic(llvm::Intrinsic::minnum, {type}, {a, f(4.0)});
  Value* hi = b.CreateBitCast(b.CreateAnd(b.CreateBitCast(clamped, int_type), llvm::ConstantInt::get(int_type, 0xfffff000u)), type);
  Value* lo = b.CreateFMul(b.CreateFSub(clamped, hi), b.CreateFAdd(clamped, hi));
  Value* e = b.CreateFMul(exp_f32_polynomial(b, b.CreateFNeg(b.CreateFMul(hi, hi))), exp_f32_polynomial(b, b.CreateFNeg(lo)));
  Value* u = b.CreateFMul(b.CreateFSub(b.CreateFMul(clamped, f(2.0)), f(4.9)), f(1.0 / 3.1));
  Value* q = polynomial(b, u, {-6.1559611777632986e-05, 0.00015966843023041781, -0.00022053482180598967,
                               0.00052608517826806227, -0.0014257008656806093, 0.0032675271999093324,
                               -0.007154715398762067, 0.0153361030068379, -0.031704842105507226,
                               0.062889076675471272, -0.11919873922478885, 0.21458708089030982});
  Value* large = b.CreateFSub(f(1.0), b.CreateFMul(e, q));

  Value* magnitude = b.CreateSelect(b.CreateFCmpOLT(a, f(0.9)), small, large);
  Value* result = b.CreateIntrinsic(llvm::Intrinsic::copysign, {type}, {magnitude, x});
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

namespace {

/// The i64 type (or vector of i64) of the same shape as an f64 type.
llvm::Type* i64_like(llvm::IRBuilder<>& b, llvm::Type* type) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(type)) return llvm::FixedVectorType::get(b.getInt64Ty(), vt->getNumElements());
  return b.getInt64Ty();
}

/// p(x) / q(x), q with the leading coefficient 1 left out (Cephes' polevl / p1evl).
Value* rational(llvm::IRBuilder<>& b, Value* x, std::initializer_list<double> p, std::initializer_list<double> q_after_1) {
  llvm::Type* type = x->getType();
  Value* q = splat_f(b, type, 1.0);
  for (double c : q_after_1) q = b.CreateFAdd(b.CreateFMul(q, x), splat_f(b, type, c));
  return b.CreateFDiv(polynomial(b, x, p), q);
}

}  // namespace

/// exp on f64 (Cephes exp): x = n ln2 + r with ln2 in two parts, e^r = 1 + 2 r P(r^2) / (Q(r^2) - r P(r^2)),
/// and the scaling by 2^n in two factors (subnormal results included).
Value* exp_f64_polynomial(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* int_type = i64_like(b, type);
  auto f = [&](double v) { return splat_f(b, type, v); };
  constexpr double kOverflow = 709.782712893383973096;    // above: +inf
  constexpr double kUnderflow = -745.133219101941108420;  // below: 0

  Value* clamped = b.CreateIntrinsic(llvm::Intrinsic::minnum, {type}, {x, f(710.0)});
  clamped = b.CreateIntrinsic(llvm::Intrinsic::maxnum, {type}, {clamped, f(-746.0)});
  Value* n_float = b.CreateIntrinsic(llvm::Intrinsic::floor, {type},
                                     {b.CreateFAdd(b.CreateFMul(clamped, f(1.4426950408889634073599)), f(0.5))});
  Value* r = b.CreateFSub(clamped, b.CreateFMul(n_float, f(6.93145751953125E-1)));
  r = b.CreateFSub(r, b.CreateFMul(n_float, f(1.42860682030941723212E-6)));
  Value* r2 = b.CreateFMul(r, r);
  Value* px = b.CreateFMul(r, polynomial(b, r2, {1.26177193074810590878E-4, 3.02994407707441961300E-2,
                                                 9.99999999999999999910E-1}));
  Value* qx = polynomial(b, r2, {3.00198505138664455042E-6, 2.52448340349684104192E-3, 2.27265548208155028766E-1,
                                 2.00000000000000000009E0});
  Value* e_r = b.CreateFAdd(f(1.0), b.CreateFMul(f(2.0), b.CreateFDiv(px, b.CreateFSub(qx, px))));

  return scale_by_power_of_two(b, x, e_r, n_float, int_type, {1023, 52, kOverflow, kUnderflow});
}

/// log on f64 (Cephes log): x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) = z - z^2/2 + z^3 P(z)/Q(z) for
/// z = m - 1, plus e ln2 in two parts. Subnormal x is scaled by 2^54 first; log(0) = -inf, log(x < 0) = NaN,
/// log(+inf) = +inf, NaN propagates.
Value* log_f64_polynomial(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* int_type = i64_like(b, type);
  auto f = [&](double v) { return splat_f(b, type, v); };
  auto i = [&](int64_t v) { return llvm::ConstantInt::get(int_type, uint64_t(v)); };

  Value* subnormal = b.CreateFCmpOLT(x, f(2.2250738585072014e-308));
  Value* scaled = b.CreateSelect(subnormal, b.CreateFMul(x, f(18014398509481984.0)), x);  // 2^54
  Value* bits = b.CreateBitCast(scaled, int_type);
  Value* biased = b.CreateAnd(b.CreateLShr(bits, i(52)), i(0x7ff));
  Value* e = b.CreateSub(biased, i(1022));
  e = b.CreateSelect(subnormal, b.CreateSub(e, i(54)), e);
  // m in [0.5, 1)
  Value* m = b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, i(int64_t(0x800fffffffffffffull))), i(int64_t(1022) << 52)), type);
  Value* low = b.CreateFCmpOLT(m, f(0.70710678118654752440));
  e = b.CreateSelect(low, b.CreateSub(e, i(1)), e);
  Value* z = b.CreateSelect(low, b.CreateFSub(b.CreateFAdd(m, m), f(1.0)), b.CreateFSub(m, f(1.0)));
  Value* e_float = b.CreateSIToFP(e, type);

  Value* z2 = b.CreateFMul(z, z);
  Value* y = b.CreateFMul(b.CreateFMul(z, z2),
                          rational(b, z,
                                   {1.01875663804580931796E-4, 4.97494994976747001425E-1, 4.70579119878881725854E0,
                                    1.44989225341610930846E1, 1.79368678507819816313E1, 7.70838733755885391666E0},
                                   {1.12873587189167450590E1, 4.52279145837532221105E1, 8.29875266912776603211E1,
                                    7.11544750618563894466E1, 2.31251620126765340583E1}));
  y = b.CreateFSub(y, b.CreateFMul(e_float, f(2.121944400546905827679e-4)));
  y = b.CreateFSub(y, b.CreateFMul(z2, f(0.5)));
  Value* result = b.CreateFAdd(b.CreateFAdd(z, y), b.CreateFMul(e_float, f(0.693359375)));

  result = b.CreateSelect(b.CreateFCmpOEQ(x, f(INFINITY)), x, result);
  result = b.CreateSelect(b.CreateFCmpOEQ(x, f(0.0)), f(-INFINITY), result);
  result = b.CreateSelect(b.CreateFCmpOLT(x, f(0.0)), f(NAN), result);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

/// tanh on f64 (Cephes tanh): x + x^3 P(x^2)/Q(x^2) for |x| < 0.625, else 1 - 2 / (e^2|x| + 1), with the
/// sign of x.
Value* tanh_f64_polynomial(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* type = x->getType();
  auto f = [&](double v) { return splat_f(b, type, v); };
  Value* z = b.CreateIntrinsic(llvm::Intrinsic::fabs, {type}, {x});
  Value* e = exp_f64_polynomial(b, b.CreateFAdd(z, z));
  Value* large = b.CreateFSub(f(1.0), b.CreateFDiv(f(2.0), b.CreateFAdd(e, f(1.0))));
  Value* z2 = b.CreateFMul(z, z);
  Value* small = b.CreateFAdd(
      z, b.CreateFMul(b.CreateFMul(z, z2),
                      rational(b, z2, {-9.64399179425052238628E-1, -9.92877231001918586564E1, -1.61468768441708447952E3},
                               {1.12811678491632931402E2, 2.23548839060100448583E3, 4.84406305325125486048E3})));
  Value* magnitude = b.CreateSelect(b.CreateFCmpOGE(z, f(0.625)), large, small);
  return b.CreateIntrinsic(llvm::Intrinsic::copysign, {type}, {magnitude, x});
}

namespace {

/// isnan, isinf: a bool (i1, or a vector of i1) per lane, of a float of any width.
Value* emit_float_class_test(llvm::IRBuilder<>& b, const std::string& name, Value* x) {
  if (name == "isnan") return b.CreateFCmpUNO(x, x);
  TEXC_CHECK(name == "isinf") << "math function " << name;
  Value* magnitude = b.CreateIntrinsic(llvm::Intrinsic::fabs, {x->getType()}, {x});
  return b.CreateFCmpOEQ(magnitude, llvm::ConstantFP::getInfinity(x->getType()));
}

}  // namespace

Value* emit_math_function(llvm::IRBuilder<>& b, const std::string& name, const std::vector<Value*>& args, Type t) {
  const MathFunctionInfo* info = find_math_function_info(name);
  TEXC_CHECK(info) << "unknown math function " << name;
  TEXC_CHECK(args.size() == size_t(info->arity)) << name << " takes " << info->arity << " argument(s), got " << args.size();
  if (info->returns_bool) {
    Value* x = args[0]->getType()->getScalarType()->isBFloatTy() ? bfloat_to_f32(b, args[0]) : args[0];
    return emit_float_class_test(b, name, x);
  }
  if (t.is_integer() || t.is_bool()) {
    TEXC_CHECK(name == "abs") << "math function " << name << " on " << t.str();
    if (t.is_int()) return b.CreateIntrinsic(llvm::Intrinsic::abs, {args[0]->getType()}, {args[0], b.getFalse()});
    return args[0];  // abs of an unsigned value or bool
  }
  TEXC_CHECK(t.is_float()) << "math function " << name << " on " << t.str();
  if (t.is_bfloat()) {  // computed in f32 (BFloatLLVM.h)
    std::vector<Value*> widened;
    for (Value* a : args) widened.push_back(bfloat_to_f32(b, a));
    return f32_to_bfloat(b, emit_float_math(b, name, widened, Float(32, t.lanes)));
  }
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
