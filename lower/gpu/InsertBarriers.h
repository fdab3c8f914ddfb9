// insert_barriers: places thread_barrier() (bar.sync) in a GPU kernel wherever the threads of a
// block communicate through memory they share (TVM's storage sync).
//
// Shared memory here is every buffer the kernel allocates outside `local` scope (`shared` tiles,
// and the intermediates between stages that run in one block), and, in a kernel of one block, the
// function's global buffers it writes (an output that a later stage reads). Every thread runs the kernel body,
// a bound loop being its thread index, so a barrier may sit in any statement sequence that all
// threads of the block reach. Guarantees:
//  - RAW: a statement that reads a shared buffer some earlier statement wrote since the last
//    barrier gets a barrier before it; WAR: likewise one that writes what was read;
//  - in a serial loop, a write at the top of the body that overwrites what the end of the body
//    still reads (or the reverse) gets a barrier at the end of the body (before the next iteration);
//  - none where a thread reads back only the element it wrote itself (same index, no loop of its
//    own in the index; a vectorized loop's variable counts as part of the thread's element, its
//    lanes being one vector access: a fill's vectorized copy repeated by a serial loop needs no
//    barrier between its iterations) and none for `local` buffers or buffers no statement shares;
//  - the barrier goes before the outermost statement of the sequence that holds the access, so a
//    conflict inside an `if` whose condition depends on the thread index is ordered before the
//    `if` (hoisted); a conflict between two statements that both sit under such a condition cannot
//    be hoisted and is an error naming the buffer, never a barrier only part of the block reaches.
#pragma once
#include "ir/Function.h"

namespace texc {

Stmt insert_barriers(const Stmt& body);

}  // namespace texc
