// GpuScheduleGenerator: random GPU schedules (`schedule cuda`) for an op, for schedule_fuzz
// --target cuda-interp.
//
// Like the CPU generator (ScheduleGenerator.h) it applies every primitive to its own ScheduleState
// (target "cuda") and keeps only what the state accepts; but a GPU schedule must bind every root
// nest, so the schedule is built in one of two shapes:
//  - grid: one root nest, the others inlined by automatic fusion or computed inside it (at its
//    innermost thread loop: `local` by infer_gpu_scopes; or at its block loop, `shared`, their
//    spatial loops fused, split by the thread counts and bound): each spatial loop split at a random factor (non-dividing ones too) or kept
//    whole, its parts sent to the block, virtual-thread, thread or serial level; a reduction loop
//    maybe split with its outer part between the block and the thread loops (TVM's ko); one
//    reorder; the block loops fused and bound to blockIdx.x (and .y), the thread loops to
//    threadIdx.x (and .y), virtual threads to vthread; then maybe a `local` cache_write computed
//    at the innermost thread loop, `shared` cache_reads of the inputs computed at the innermost
//    block loop or ko and filled cooperatively (fuse, split by the thread counts, bind), and
//    `local` cache_reads computed inside the thread loops;
//  - block: every root nest fused, split by the same thread count T and bound to threadIdx.x (one
//    block, stages ordered by barriers), as the default schedule does but with random T.
// A schedule the lowering rejects with a located error (too many threads, a tag bound to two
// extents...) is skipped by the fuzzer, not a failure.
#pragma once
#include <random>

#include "tests/schedule/ScheduleGenerator.h"

namespace texc {

GeneratedSchedule generate_gpu_schedule(const OpDef& op, std::mt19937_64& rng);

}  // namespace texc
