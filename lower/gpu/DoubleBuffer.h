// pipeline_double_buffers: software pipelining of the shared tiles double_buffer(S) marked
// (lower/schedule/DoubleBuffer.cpp): two halves per tile, the next tile fetched while the block
// computes with this one.
//
// Assumes: runs after hoist_gpu_allocations (buffers flattened, shared buffers allocated inside the
// serial loop that holds their fill) and before insert_barriers, which orders the halves.
//
// Guarantees: for each serial loop L (over l in m..m+n) whose body is a chain of Allocates around
// statements, some of them `pragma(double_buffer)` fills: when every marked fill stores only into
// constant-size shared buffers of that chain, reads no buffer of the chain, and comes before every
// statement that reads one of those buffers (the doubled buffers D), the loop becomes
//
//   allocate b: [2*size] shared (each b in D) {
//     if (n > 0) { fills at l = m into half 0 }      // the prologue
//     async_copy_commit()
//     for l in m..m+n {
//       (the chain's other allocates) {
//         if (l + 1 < m + n) { fills at l + 1 into half (l - m + 1) % 2 }   // the prefetch
//         async_copy_commit()
//         async_copy_wait(1)                      // this thread's copies of tile l are done
//         the other statements, reading half (l - m) % 2
//       }
//     }
//   }
//
// with the fills' attribute renamed `pragma(async_copy)`: on sm_80 and later the code generator
// issues each of their stores of a global element into shared memory as a cp.async (4, 8 or 16
// bytes, as aligned) and the commit and wait as cp.async.commit_group / wait_group; elsewhere, and
// on cuda-interp, the copies are plain loads and stores and the commit and wait do nothing. The
// barriers (a block's threads wait for each other's copies, and finish reading a half before it is
// refilled) are insert_barriers' RAW and loop-carried WAR barriers.
// Leaves alone (the attribute dropped, the fill as it was, a remark at the tile's cache_read): a
// marked fill that does not qualify, e.g. a tile of TVM's compute_at(CL, tx) form, allocated
// outside the thread loops and so outside its k loop.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt pipeline_double_buffers(const Stmt& body);

}  // namespace texc
