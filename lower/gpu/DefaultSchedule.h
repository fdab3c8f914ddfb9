// gpu_default_schedule: the schedule a GPU target gives an op whose schedule binds no loop (no
// `schedule cuda` block, or one that binds nothing), so that such an op always runs.
//
// Guarantees: every root loop nest of the op gets its outer chain of perfectly nested spatial
// loops fused into one loop of N iterations and split by T = min(256, N); with one root nest the
// outer part is bound to blockIdx.x and the inner to threadIdx.x (one thread per output point;
// reduction loops stay serial inside the thread); with several root nests (stages that feed each
// other through an intermediate) all of them run in one block: the outer part stays a serial loop
// and the inner is bound to threadIdx.x with the same extent T in every nest, so that the barrier
// pass can order the stages. A nest with no spatial loop (a full reduction) runs on one thread. The
// fused index is split back with / and %, non-dividing extents get Block predicates (as split).
// An op that binds any loop is left alone: its schedule is checked, not completed.
#pragma once
#include "lower/schedule/ScheduleState.h"

namespace texc {

void gpu_default_schedule(ScheduleState& st);

}  // namespace texc
