// zero_pad_k_tiles (schedule pass, GPU targets, after infer_gpu_scopes; Blocks still present): the
// shared tiles of a tensor-core GEMM whose k tile does not divide K hold exact zeros past K, so
// that every lane of the warp runs the mma over the whole last k tile (CUTLASS's and TVM's
// zero-padded tiles).
//
// tensorize(L, cuda.mma_*) dropped the nest's reduction bound `k < K` and recorded the nest
// (ScheduleState::zero_padded_k_tiles, lower/schedule/TensorizeMma.h). For each such nest, each of
// its operands A and B must be
//   - a `shared` stage (a cache_read), and
//   - filled, by every Block of that stage, over at least the span of k the mma reads inside the
//     loops that enclose both (a tile attached inside the k tiles' loop, compute_at(AS, ko)),
//     that span no longer than the operand's extent in k (plan_storage then allocates the whole
//     tile and does not clamp it).
// Then each fill Block's conjunct `k < K` (the guard of its k dimension) leaves its predicate and
// its store becomes `S[.., k, ..] = select(k < K, value, 0)` (a fill vectorized along k by L, k =
// k0 + v, with K and k0 multiples of L: `k0 < K`, one condition per vector): the elements past K are written as 0
// instead of skipped (stale shared memory can hold NaN, and NaN * 0 is NaN, so both operands are
// padded). The fill's other guards (the rows of A past M, the columns of B past N) stay: those
// elements only reach outputs nobody stores. Otherwise the nest is refused with a located error at
// its tensorize (which says what to write instead).
//
// Guarantees: every element the mma reads is either the operand's value or, past K, exactly 0, so
// the nest computes the sum over 0..K-1 as the guarded one did. Leaves alone: every other Block.
// A double_buffer fill stays a fill: on sm_80 and later the code generator issues a store of
// `select(c, A[..], 0)` whose condition is one for all its lanes (an element, or a vector along a
// row of B, or of A as above) as cp.async's src-size form, c ? all bytes : none read, the rest
// zero-filled (backends/llvm/CodeGenNVPTX.cpp); a vector whose lanes differ in c is a plain load
// and store. cuda-interp runs the fills as they are written.
#pragma once
#include "lower/schedule/ScheduleState.h"

namespace texc {

void zero_pad_k_tiles(ScheduleState& st);

}  // namespace texc
