// MathLLVM: the math functions of the language (ir/MathFunctions.h: exp log sqrt tanh sigmoid abs pow
// floor ceil, exp2 expm1 log2 log1p rsqrt erf erfc sin cos atan2 round trunc fmod isnan isinf) on
// scalar and vector LLVM values, for the CPU targets.
//
// sqrt floor ceil round trunc abs map to LLVM intrinsics (native instructions), rsqrt is 1 / sqrt, isnan
// and isinf are compares. exp, tanh and sigmoid on f32 vectors use vectorizable Cephes-style
// polynomials (about 2 ulp; exp overflows to +inf above 88.72, underflows to 0 below -103.97; NaN
// propagates); on scalars and f64 they call libm (llvm.exp / llvm.log / llvm.pow intrinsics, which the
// backend turns into per-lane expf/logf/powf calls for vectors; tanh per lane). exp2 log2 sin cos are
// the llvm.exp2/log2/sin/cos intrinsics and fmod LLVM's frem: libm (exp2f, sinf, fmodf, ...) per lane.
// erf on f32 vectors is a polynomial (erf_f32_polynomial, within 2 ulp); erf on scalars and f64, erfc
// log1p expm1 atan2 call libm per lane. f16 and bf16 are computed in f32. sigmoid(x) = 1 / (1 + exp(-x)).
#pragma once
#include <llvm/IR/IRBuilder.h>

#include <string>
#include <vector>

#include "ir/Type.h"

namespace texc {

/// Emits math function `name` applied to `args` (already of the LLVM type of `type`), whose texc
/// result type is `type`.
llvm::Value* emit_math_function(llvm::IRBuilder<>& builder, const std::string& name,
                                const std::vector<llvm::Value*>& args, Type type);

/// exp on f32 scalars or vectors without libm: Cody-Waite reduction and Cephes' polynomial (about
/// 2 ulp; +inf above 88.72, 0 below -103.97, NaN propagates). Used for vectors on the CPU and for
/// everything on targets without libm (NVPTX).
llvm::Value* exp_f32_polynomial(llvm::IRBuilder<>& builder, llvm::Value* x);
/// tanh on f32 scalars or vectors without libm (Cephes tanhf, built on exp_f32_polynomial).
llvm::Value* tanh_f32_polynomial(llvm::IRBuilder<>& builder, llvm::Value* x);

/// erf on f32 scalars or vectors without libm: polynomials below 0.9, 1 - e^-x^2 Q(x) above (within
/// 2 ulp; NaN propagates). Used for f32 vectors on the CPU (gelu).
llvm::Value* erf_f32_polynomial(llvm::IRBuilder<>& builder, llvm::Value* x);

/// exp, log and tanh on f64 scalars or vectors without libm (Cephes exp, log, tanh: rational
/// approximations, within a few ulp; exp +inf above 709.78 and 0 below -745.13, log -inf at 0 and NaN
/// below, NaN propagates). Used on targets without libm (NVPTX).
llvm::Value* exp_f64_polynomial(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* log_f64_polynomial(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* tanh_f64_polynomial(llvm::IRBuilder<>& builder, llvm::Value* x);

}  // namespace texc
