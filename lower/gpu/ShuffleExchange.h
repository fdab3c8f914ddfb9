// exchange_shuffles: cuda-interp's form of the warp shuffles of a kernel, and of its tensor-core
// updates (lower/gpu/MmaExchange.h), for phase_threads (lower/gpu/VirtualThreads.h).
//
// cuda-interp runs the threads of a block phase by phase between barriers, so a shuffle (every
// lane of the warp handing its value over at once) is made a synchronisation point of the whole
// block: `X = f(shuffle_down(v, k))` becomes `xchg[tid] = v; barrier; X = f(value of lane + k);
// barrier`, with xchg a `shared` buffer of one element per thread of the block (one per element
// type). A block-wide point is stronger than the warp's, and the same wherever every thread of the
// block reaches the shuffle (lower_cross_thread_reductions emits only such shuffles; one elsewhere
// is the "barrier not reached" error). The value follows PTX's shfl.sync.down over a full warp:
// lane + k past lane 31 gets its own value; a lane beyond the block's last thread (a partial warp)
// has none: a float gets NaN (so a reduction that reads it shows a wrong result), an integer its
// own value.
//
// Assumes the block regions of merge_thread_loops: the bodies of the block loops (or the kernel),
// each with one loop per threadIdx tag, threadIdx.z outermost, directly nested; one shuffle per
// statement.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt exchange_shuffles(const Stmt& body);

}  // namespace texc
