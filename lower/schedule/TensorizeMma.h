// tensorize(L, cuda.mma_tf32 | cuda.mma_3xtf32 | cuda.mma_f16 | cuda.mma_bf16): the nest under L, which each lane of a warp runs
// on its own elements, becomes the warp's mma.sync (lower/gpu/MmaIntrinsics.h states the intrinsics
// and PTX's fragment layout).
//
// Contract (each failure a Mismatch that names the part):
//  - shape: L and the two loops under it are perfectly nested down to one Block, with constant
//    extents 2, 2 and K from 0 (ih: the two row halves, jl: the column pair, kk: the k step of 8
//    for TF32, 16 for f16 and bf16), and
//    L lies under a loop of extent 32 from 0 bound to threadIdx.x (the lane);
//  - expression: the Block stores c + a * b in f32 (c + f32(a) * f32(b) of f16 or bf16 a, b), a reduction (the pattern of MmaIntrinsics.h);
//    outer loops may drive the rest of the reduction (the intrinsic accumulates);
//  - layout: for every lane, ih, jl and kk, each access is the element of the warp's 16 x 8 x K tile
//    that the fragment layout gives it: row m = 8*ih + lane/4 and column n = 2*(lane%4) + jl of C,
//    (m, kk) of A and (kk, n) of B, each at a constant row and column stride from the lane-0
//    element (checked by evaluating the flattened offsets at every point, with the other loops at
//    two sets of values);
//  - no guard of the Block depends on the nest's loops or on a thread index (the whole warp must
//    reach the mma together), but a `local` register tile's edge guards in its rows and columns
//    (kept; drop_register_tile_guards removes them) and the reduction's own bound `k < K` of a k
//    tile that does not divide K, with A and B indexed by k itself over K: that one is dropped and
//    recorded (ScheduleState::zero_padded_k_tiles) for zero_pad_k_tiles
//    (lower/gpu/ZeroPadKTiles.h), which zero-pads the operands' shared tiles past K or refuses.
// Result: a Block of the same stage whose body is the statement
//   mma_sync_tf32(C[c0], C[c1], C[c2], C[c3], a0, a1, a2, a3, b0, b1)   (mma_sync_f16, mma_sync_bf16: a0..a7, b0..b3)
// which adds the warp's A . B into the lane's accumulator elements C[c_r] in place, a_q and b_q the
// lane's fragment elements (loads of the nest's A and B at the points the layout names); the init is looped over ih and jl (as for an LLVM
// intrinsic), so lower_blocks still resets the accumulator before the reduction's outer loops.
#pragma once
#include <optional>

#include "ir/IR.h"
#include "ir/Op.h"
#include "lower/schedule/ScheduleState.h"

namespace texc {

/// The replacement of the nest under `top`, or a tensorize::Mismatch. A reduction bound it dropped
/// (a k tile that does not divide K) is returned in `padded`, for zero_pad_k_tiles.
Stmt warp_mma_replacement(const ScheduleState& st, const For* top, const IntrinsicDef& intrin,
                          std::optional<ZeroPaddedKTile>* padded);

}  // namespace texc
