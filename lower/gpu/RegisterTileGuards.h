// Guards of a GPU thread's register tile: a thread computes its whole tile of accumulators, and
// only the stores that leave the tile are guarded at the tensor's edge.
//
// A non-dividing tile (G5: 1000 = 15 x 64 + 40) guards every statement of the tile at the edge of
// the tensor, and in a matmul's unrolled inner loops that is a branch per multiply-add: the shared
// loads cannot be merged into vector loads and the kernel runs at a tenth of its dividing
// neighbour's speed. Two passes take the guards out of the inner loops.
//
// drop_register_tile_guards (schedule pass, GPU targets, after infer_gpu_scopes; Blocks still
// present): a Block of a `local` stage (one buffer per thread) loses the conjuncts of its predicate
// that mention no loop driving a reduction axis, when
//   - its body and init read only `local` and `shared` buffers (its own included) and call nothing
//     but pure math, pure intrinsics and tensor-core steps (a tensorized register tile: the mma
//     updates only the lane's own accumulator elements), with no integer division or modulo but by
//     a non-zero constant;
//   - each of its accesses spans, over the loops inside the block loops, no more of a dimension
//     than the buffer's full shape: plan_storage allocates the region its loops reach (it clamps
//     only a region larger than the full shape, a tile larger than the tensor), so a point past
//     the tensor's edge reads and writes inside the allocations and cannot fault; the values it
//     computes are garbage nobody reads;
//   - no thread-bound loop drives one of its reduction axes (a cross-thread reduction's lanes
//     stay as written).
// Guarantees: every point inside the stage's domain is computed exactly as before; the stores of
// the points past the edge go into the thread's own buffer; a reduction axis keeps its guard (the
// sum of a point must not take terms past K); stages that read global memory (the cache_read
// copies into shared memory) and stores to global memory keep theirs.
//
// hoist_invariant_guards (function pass, GPU targets, after simplify): `for v { if (c) S }` with
// `c` not mentioning v becomes `if (c) { for v { S } }`, for serial and unrolled loops (never across
// a thread-bound loop), innermost first: the k guard of a non-dividing K is tested once per k, not
// once per accumulator. Computes exactly what its input computes.
#pragma once
#include "ir/IR.h"
#include "lower/schedule/ScheduleState.h"

namespace texc {

void drop_register_tile_guards(ScheduleState& st);

Stmt hoist_invariant_guards(const Stmt& body);

}  // namespace texc
