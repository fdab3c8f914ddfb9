// lower_cross_block_reductions: a reduction loop bound to blockIdx.* (split-K: `ks, kr =
// split(CL.k, 256)`, `bind(ks, blockIdx.z)`) becomes per-block partial results that the blocks add
// into the op's output atomically. Atomics, not a second reduction kernel: the output is zeroed by
// the host before the launch (LaunchAttributes::zeroed_outputs), and the result's summation order
// depends on the order the blocks run in (nondeterministic in the last bits of a float sum).
//
// Assumes the IR after single_thread_stores (before hoist_gpu_allocations and insert_barriers),
// flattened. A loop L bound to blockIdx.* is a cross-block reduction when it is named in
// `reduction_loops` (ScheduleState::block_bound_reductions), or, without that set (pass tests on IR
// text), when its body updates an element that does not depend on L, `B[idx] = B[idx] op x`, B
// an argument or allocated outside L. Guarantees, for such an L (at most one per kernel):
//  - B an output of the op (the reduction accumulates into the output itself): every update of it
//    inside L becomes `atomic_add(B[idx], x)`, and the stores of zero into B outside L (the
//    reduction's init) are dropped;
//  - B `local` (a register tile, cache_write(C, local)): it stays each block's partial, from its
//    own init; each store outside L that writes an element of it as is into an output,
//    `C[idx2] = B[idx3]`, becomes `atomic_add(C[idx2], B[idx3])`;
//  - L itself moves to the root of the kernel (a bound loop is an index, not a loop: everything
//    outside L now runs in every block along that axis, which the two rules above make correct:
//    local and shared buffers are each block's own, and no store into global memory is left
//    outside L but the atomic adds);
//  - the outputs that receive atomic adds are listed, in argument order, in
//    f.launch.zeroed_outputs: the host, the executors and cuda-interp fill them with zeros before
//    each launch.
// Only sums are supported (f32, f64, i32, i64: LLVM's atomicrmw fadd / add).
//
// What cannot be lowered is a located diagnostic at L's bind (`bind_locs`; no location when
// absent): another combiner (max, min, prod); B not an output (an intermediate, a shared buffer)
// or written into something other than an output; a partial result read by anything but its
// write into the output (a fused consumer, another store of the output outside L); a type without
// an atomic add; two such loops in one kernel.
#pragma once
#include <map>
#include <set>
#include <string>

#include "ir/Function.h"
#include "ir/SourceLoc.h"

namespace texc {

LoweredFunc lower_cross_block_reductions(LoweredFunc f, const std::map<std::string, SourceLoc>& bind_locs = {},
                                         const std::set<std::string>* reduction_loops = nullptr);

}  // namespace texc
