// lower_cross_thread_reductions: a reduction loop bound to threadIdx.* becomes a reduction across
// the threads of the block (TVM's lower_thread_allreduce).
//
// Assumes the IR after lower_blocks, flattening and simplify (before hoist_gpu_allocations and
// insert_barriers), every bound loop of a tag having the same constant extent. A loop L bound to
// threadIdx.* is a cross-thread reduction when its body updates an element that does not depend
// on L, `B[idx] = B[idx] op x` with op one of + * max min (sum, prod, max, min), B allocated
// outside L. Guarantees, for each such L:
//  - each thread accumulates its part (its iterations of the serial reduction loops inside L) in
//    a `local` register, starting at the reduction's identity;
//  - the threads then combine their values: shuffle_down (32 lanes, full mask) within each warp,
//    a lane combining only with lanes of its own reduction group that exist (identity padding, so
//    any extent works, not only multiples of 32 or powers of two); with several warps per group,
//    the first lane of each warp writes its value to a `shared` buffer, a barrier, then the first
//    warp combines them with shuffles (a group not aligned to warps: its first thread combines
//    them in order);
//  - the groups are the other thread indices (threadIdx.y rows reduce independently over
//    threadIdx.x); a tag bound in the kernel but not around L gets a loop of its full extent
//    around L (every thread runs L anyway), so each group has its own slots, and only its row 0
//    writes the result; inside a vthread loop each virtual thread has its own slots too;
//  - the result is written once (under the conditions around the updates that depend neither on
//    L nor on the loops inside it, e.g. the guard of a row past the tensor's end), by the group's
//    thread 0: `B[idx] = total` when B's identity init stands right before L (the init is then
//    dropped), `B[idx] = B[idx] op total` when L sits inside a serial reduction loop (after a
//    barrier, so the other threads' init came first); then a barrier when B is a buffer of the
//    kernel (an intermediate the other threads read: insert_barriers does not order a write and a
//    read of one element, taking them for one thread's). A `local` B (one copy per thread) gets
//    the total in every thread, broadcast through a `shared` slot between two barriers.
// Every barrier and shuffle the pass emits is reached by every thread of the block. Left alone:
// loops bound to blockIdx.* or vthread, thread loops whose threads write their own elements, and
// thread loops whose index appears only in `L == c` guards (each thread, or one, makes the whole
// reduction: the default schedule's nests without spatial loops run on thread 0).
//
// What cannot be lowered is a located diagnostic at the reduction loop's bind (`bind_locs`: loop
// name -> location of the tag; the op's location when absent): a reduction over threadIdx.y/z
// while a lower tag has more than one thread; a thread loop or a spatial loop of B inside L; L
// under a condition or loop that depends on the thread index; updates of two elements in one L.
#pragma once
#include <map>
#include <set>
#include <string>

#include "ir/IR.h"
#include "ir/SourceLoc.h"

namespace texc {

/// `reduction_loops`, when given, names the loops the schedule bound to threadIdx.* that are
/// reduction loops (ScheduleState::thread_bound_reductions): only those are candidates, so a
/// spatial thread loop over a per-thread `local` accumulator (register blocking, whose index no
/// longer names the thread) is left alone. Without it (pass tests on IR text) every thread loop
/// that matches the pattern above is one.
Stmt lower_cross_thread_reductions(const Stmt& body, const std::map<std::string, SourceLoc>& bind_locs = {},
                                   const std::set<std::string>* reduction_loops = nullptr);

}  // namespace texc
