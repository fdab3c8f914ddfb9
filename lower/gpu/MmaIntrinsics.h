// The tensor-core intrinsics of the GPU targets (cuda, cuda-interp): `tensorize(L, cuda.mma_tf32)`,
// `cuda.mma_3xtf32`, `cuda.mma_f16` and `cuda.mma_bf16`, and the one place that states PTX's fragment
// layouts of mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 and
// mma.sync.aligned.m16n8k16.row.col.f32.{f16.f16,bf16.bf16}.f32.
//
// Each is the pattern c[i, j] += a[i, k] * b[k, j] over a 16 x 8 x K tile with an f32 accumulator
// (definitions below: the pattern tensorize matches), computed by the 32 lanes of a warp together:
// K = 8 with f32 operands (TF32), K = 16 with f16 or bf16 operands (c += f32(a) * f32(b), the
// product exact in f32). Lane = 4*g + t
// (g = lane / 4, t = lane % 4) holds
//   TF32: a_r = A[g + 8*(r % 2)][t + 4*(r / 2)]                  r = 0..3   (A 16 x 8, row major)
//         b_r = B[t + 4*r][g]                                    r = 0..1   (B 8 x 8, k by n)
//   F16 and BF16 (the same layout):
//         a_r = A[g + 8*((r / 2) % 2)][2*t + r % 2 + 8*(r / 4)]  r = 0..7   (A 16 x 16; pairs
//         b_r = B[2*t + r % 2 + 8*(r / 2)][g]                    r = 0..3    in one register)
//   both: c_r = C[g + 8*(r / 2)][2*t + r % 2]                    r = 0..3   (C and D 16 x 8)
// A thread's nest therefore covers, within the warp's tile, the rows 8*ih + g and the columns
// 2*t + jl for ih, jl in 0..2, and the whole k: the loops (ih, jl, kk) of extents (2, 2, K)
// under a loop of 32 lanes bound to threadIdx.x (lower/schedule/TensorizeMma.cpp checks this).
//
// cuda.mma_tf32 rounds each operand to TF32 (10 mantissa bits, to nearest with ties away: cvt.rna)
// and accumulates in f32: each product is off by up to about 2 * 2^-11 of its magnitude, which the
// check against the reference allows for (input_unit_roundoff below). cuda.mma_3xtf32 splits each
// operand x into big = tf32(x) and small = tf32(x - big) and adds big*big + big*small + small*big
// (three mma.sync): about f32's own accuracy at three times the tensor-core work.
#pragma once
#include <vector>

#include "ir/IR.h"
#include "ir/Intrinsics.h"
#include "ir/Op.h"

namespace texc {

/// The definitions of cuda.mma_tf32, cuda.mma_3xtf32, cuda.mma_f16 and cuda.mma_bf16 (lower_kind
/// "cuda.mma", symbol the IR intrinsic that computes an element: mma_sync_tf32, mma_sync_3xtf32,
/// mma_sync_f16, mma_sync_bf16).
std::vector<IntrinsicDef> cuda_mma_intrinsics();

/// A tensor-core step: its k, and how many elements of A and of B one lane holds.
struct MmaShape {
  int k, a_elements, b_elements;
};
/// The shape of the step an element intrinsic (MmaSyncTf32, MmaSync3xTf32, MmaSyncF16, MmaSyncBf16)
/// computes.
MmaShape mma_shape(Intrinsic element);
/// True for the intrinsics of a tensor-core step.
bool is_mma(Intrinsic which);

/// A matrix element (row, column) of a fragment register.
struct FragmentElement {
  Expr row, col;
};
/// The element that element r of `lane` (0..31) holds in A (r below shape.a_elements), B (below
/// shape.b_elements) or C/D (r 0..3).
FragmentElement mma_a_element(const MmaShape& shape, const Expr& lane, int r);
FragmentElement mma_b_element(const MmaShape& shape, const Expr& lane, int r);
FragmentElement mma_c_element(const Expr& lane, int r);

/// The lane (0..31) and register that hold element (row, col) of A or B: the inverse of the above.
struct FragmentHolder {
  Expr lane, reg;
};
FragmentHolder mma_a_holder(const MmaShape& shape, const Expr& row, const Expr& col);
FragmentHolder mma_b_holder(const MmaShape& shape, const Expr& row, const Expr& col);

/// ldmatrix.sync.aligned.m8n8.xN{.trans}.b16 (N 8 x 8 matrices of 16-bit units, rows of 16 bytes
/// in shared memory): lane 8*m + i names where row i of matrix m starts (lanes past 8*N repeat
/// others), and the lane's register m (32 bits) receives
///   plain: from the row named by lane 8*m + lane/4, the 4 bytes at byte 4*(lane%4)
///   trans: unit u (0, 1) from the row named by lane 8*m + 2*(lane%4) + u, the unit at lane/4
/// (trans transposes each matrix: b16 elements only). The element `element` (0 .. 4/element_bytes)
/// of register `reg` of `lane` is the one `offset` elements after the row start that lane `source`
/// of the same warp names.
struct LdMatrixSource {
  Expr source, offset;
};
LdMatrixSource ldmatrix_source(const Expr& lane, int reg, int element, int element_bytes, bool trans);

/// The unit roundoff/// The unit roundoff of the operands a lowered body multiplies with (2^-11 where it has a TF32
/// mma, 0 otherwise): the check widens its tolerance by twice that (backends/interp/Check.h).
double input_unit_roundoff(const Stmt& body);

}  // namespace texc
