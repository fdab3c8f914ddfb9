// expand_virtual_threads: a loop bound to `vthread` (TVM's virtual threads) becomes unrolled loops
// over its V virtual threads inside each real thread, interleaved at barriers.
//
// Guarantees: every `local` buffer allocated inside the vthread loop gets V copies (allocated
// around the expansion, each virtual thread indexing its own copy: v*N + i on a flattened buffer),
// so values live from one phase to the next; the loop's body is split at its barriers (loop
// fission, descending into the serial loops and ifs that hold them): each barrier-free segment
// runs for every virtual thread in turn, then the barrier, then the next segment, so all virtual
// threads of a thread advance together from barrier to barrier as real threads do. A barrier under
// a loop or condition that depends on the virtual thread cannot be interleaved and is an error.
// Runs after insert_barriers (which treats a vthread loop like a thread loop).
// phase_threads (below) applies the same expansion to the real threads, for cuda-interp.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt expand_virtual_threads(const Stmt& body);

/// cuda-interp's execution form of a kernel (after expand_virtual_threads): the same fission for
/// every loop bound to threadIdx.*, so that the threads of a block run phase by phase (each phase
/// for every thread in turn, each thread its own copy of its `local` buffers); blockIdx loops stay
/// loops (blocks one after another). Each barrier still stands between the two phases it
/// separates, and each phase's loops over the threads are bound to their tag (`bound(threadIdx.x)
/// threadIdx.x.2 in 0..T`, the thread index): what cuda-interp's race detector
/// (backends/interp/CudaInterpreter.h) instruments. A barrier that not every thread of the block
/// reaches (under a condition or loop that depends on the thread) is an error naming the thread
/// loop. Warp shuffles are block-wide exchanges through shared memory between two barriers first
/// (lower/gpu/ShuffleExchange.h).
Stmt phase_threads(const Stmt& body);

}  // namespace texc
