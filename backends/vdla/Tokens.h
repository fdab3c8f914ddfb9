// Dependency-token placement for a VDLA instruction stream whose instructions each belong to one
// virtual thread (docs/vdla.md, "Dependency tokens"; VTA's CoProcSync, on a stream that is
// already unrolled).
//
// In the order of the interleaved stream: an instruction X of engine E waits for the latest
// earlier instruction J of each neighbouring engine F (LOAD<->COMPUTE, COMPUTE<->STORE) whose
// on-chip footprint conflicts with X's (one of them writes a row the other touches: Footprint.h)
// — unless E already waited for J or a later F instruction of any thread (F runs in order, so J
// is then done). J pushes on the F->E queue and X pops it. The pairs of a queue thus increase in
// both engines' orders, which is what a FIFO queue shared by all threads pairs (planned per
// thread, a ragged last tile with one thread idle made them cross). These are the spec's pairs at
// the changes of engine, kept where they order a real dependence: RAW (compute after the load it
// reads, the store after the compute that wrote its rows) and WAR (the next load after the compute that read
// the rows it overwrites, a reset after the store that drained its rows). A pair that orders
// nothing is left out: a load of the next tile's input does not wait for the requantization ALU
// work, and the ALU work of one chunk of an accumulator tile does not wait for the store of
// another, so they overlap. An instruction without a footprint (a sync) waits for the latest of
// each neighbour. Since each thread has its own copy of the on-chip buffers, the threads do not
// wait for each other: thread 1's loads run while thread 0 computes. LOAD and STORE never wait
// for each other (they touch different buffers). At the end, one COMPUTE sync per thread pops what
// is still owed to COMPUTE, and FINISH (no pops) follows, so it completes after the last load and
// store. Every push has exactly one pop, so each queue balances; the caller checks the
// interleaved stream with the simulator's token model, and the simulator's hazard check
// (HazardCheck.h) proves on every run that no dependence was left out.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "backends/vdla/Footprint.h"
#include "backends/vdla/Isa.h"

namespace texc::vdla {

struct ThreadedInsn {
  Insn insn;
  int thread = 0;  // the virtual thread; -1: before every thread's work (the micro-op table load)
  std::string comment;
  std::optional<Footprint> footprint;  // what it touches on chip; none: treated as touching everything
};

/// Sets the token flags of `stream` (which must carry none) and appends the final syncs and FINISH.
void place_tokens(std::vector<ThreadedInsn>& stream);

}  // namespace texc::vdla
