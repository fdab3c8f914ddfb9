// single_thread_stores: on a GPU every thread of a block runs what lies outside its thread loops.
// A store there into a buffer that is not `local` (global or shared: an init before a serial
// reduction loop, a per-block result written from a register) would be made by every thread at
// once, a write-write race even when the values agree. This pass has one thread make it.
//
// The same holds for a store inside a threadIdx.y loop but outside every threadIdx.x loop (a row's
// init before a reduction over threadIdx.x): every x thread of the row would make it.
//
// Guarantees: every maximal statement that holds no loop (bound or not: an unbound loop stays
// for the launch check to report) and stores into a non-`local` buffer, and that is not inside loops of every threadIdx tag the kernel uses, is
// wrapped in loops bound to each missing tag (their launch extents) under the guard that each of
// those indices is 0: one thread of the block (or of its row) runs it, the others skip it (as the
// default GPU schedule runs a nest without spatial loops). Statements that store only into `local`
// buffers (each thread's own) are left to every thread. Kernels without thread loops are
// unchanged. Runs before insert_barriers, which then orders what that thread wrote before other
// threads read it.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt single_thread_stores(const Stmt& body);

}  // namespace texc
