// Dependency-token placement for a VDLA instruction stream whose instructions each belong to one
// virtual thread (shared/spec/vdla.md, "Dependency tokens"; VTA's CoProcSync, on a stream that is
// already unrolled).
//
// Per virtual thread, in that thread's program order: an instruction of engine E waits for the
// most recent instruction of each neighbouring engine F (LOAD<->COMPUTE, COMPUTE<->STORE) that
// came after E's own previous instruction of the thread: that F instruction pushes on the F->E
// queue and this one pops it. This is the pair at every change of engine (RAW: compute after the
// load it reads; WAR: the next load after the compute that read the buffer it overwrites), and
// since each thread has its own copy of the on-chip buffers, the threads do not wait for each
// other: thread 1's loads run while thread 0 computes. LOAD and STORE never wait for each other
// (they touch different buffers). At the end, one COMPUTE sync per thread pops what is still owed
// to COMPUTE, and FINISH (no pops) follows, so it completes after the last load and store.
// Every push has exactly one pop, so each queue balances; the caller checks the interleaved
// stream with the simulator's token model.
#pragma once
#include <vector>

#include "backends/vdla/Isa.h"

namespace texc::vdla {

struct ThreadedInsn {
  Insn insn;
  int thread = 0;  // the virtual thread; -1: before every thread's work (the micro-op table load)
  std::string comment;
};

/// Sets the token flags of `stream` (which must carry none) and appends the final syncs and FINISH.
void place_tokens(std::vector<ThreadedInsn>& stream);

}  // namespace texc::vdla
