// exchange_mma: cuda-interp's form of one tensor-core update (lower/gpu/MmaIntrinsics.h), for
// exchange_warp_operations (lower/gpu/ShuffleExchange.h).
//
// `mma_sync_tf32(C[c0], C[c1], C[c2], C[c3], a0, a1, a2, a3, b0, b1)` needs the fragments of every
// lane of the warp. It becomes: the thread's A and B elements (a0..a3 and b0, b1; a0..a7 and b0..b3
// for f16) written to shared f32 exchange buffers (slots per thread of the block), a barrier, and
// for each r in 0..4 the store C[c_r] = C[c_r] +
//   sum over k in 0..K of A[m][k] * B[k][n], (m, n) = the C element register r of this lane holds,
// each A and B element read from the slot of the lane and register that hold it in PTX's layout
// (mma_a_holder, mma_b_holder) within this thread's warp (threads tid - tid%32 ..), rounded to TF32
// (round_tf32), or for the 3xTF32 form big*big + big*small + small*big, f16 ones exactly; then a
// barrier. An operand loaded by ldmatrix (lower/gpu/LdMatrix.h) first has every lane write its
// row start to `rows` and a barrier; each of its elements is then read from the shared buffer at
// the row start of the lane ldmatrix_source names, so the lanes' row starts must be right too. So a
// tensorize whose loads do not give each lane its fragment computes a wrong C, which the check
// against the reference shows.
#pragma once
#include "ir/IR.h"

namespace texc {

/// The statements that replace the statement `mma` (a tensor-core update) in the thread program
/// whose linear thread index is `tid`; `xa` and `xb` are the block's exchange buffers, `rows`
/// (two indices per thread) the one for the row starts of ldmatrix operands.
Stmt exchange_mma(const Call* mma, const Expr& tid, const Buffer& xa, const Buffer& xb, const Buffer& rows);

}  // namespace texc
