// BFloatLLVM: bf16 values in LLVM IR. texc keeps bf16 values in LLVM's `bfloat` type (scalars and
// vectors) and computes every operation on them in f32, rounding the result back to bf16 (as f16
// is computed, and as the interpreters compute both). The two conversions are written here as
// integer operations rather than LLVM's fpext/fptrunc: LLVM lowers an f32 -> bfloat fptrunc on
// x86 without AVX512-BF16 into a call of __truncsfbf2, which libgcc before GCC 13 lacks.
//
// bfloat_to_f32 is exact. f32_to_bfloat rounds to nearest, ties to even (overflowing to infinity),
// and turns a NaN into a quiet NaN of the same sign: bit for bit the interpreters' float_to_bfloat
// (backends/interp/Half.h).
#pragma once
#include <llvm/IR/IRBuilder.h>

namespace texc {

/// `v` (bfloat or a vector of bfloat) widened to float (or a vector of float).
llvm::Value* bfloat_to_f32(llvm::IRBuilder<>& builder, llvm::Value* v);

/// `v` (float or a vector of float) rounded to bfloat (or a vector of bfloat).
llvm::Value* f32_to_bfloat(llvm::IRBuilder<>& builder, llvm::Value* v);

}  // namespace texc
