// insert_dependency_tokens — the last pass of the VDLA pipeline (backends/vdla/Codegen.cpp), VTA's
// InjectCoProcSync. It runs on the instruction stream: which instruction waits for which is a
// question about the concrete on-chip rows each instruction touches, in the order the engines
// receive them.
//
// Assumes: every entry is a finished instruction (inject_dma_copies and fold_uop_loops have run:
// no `copy`, no `nest`) without tokens; `uops` is the micro-op table, at UOP row 0; an entry of
// thread -1 (the micro-op table's load) comes before every thread's work.
// Guarantees: the footprint of each thread's instruction (Footprint.h, its micro-ops read from
// `uops`), then place_tokens (Tokens.h: a wait only where two neighbouring engines' footprints
// conflict, per virtual thread; the final COMPUTE syncs and FINISH appended). The result balances
// every token queue; Codegen.cpp still checks it with the simulator's token model.
// Leaves alone: the instructions' fields, their order and comments.
#pragma once
#include <vector>

#include "backends/vdla/Tokens.h"
#include "backends/vdla/lowering/Stream.h"

namespace texc::vdla {

std::vector<ThreadedInsn> insert_dependency_tokens(std::vector<StreamEntry> stream, const std::vector<Uop>& uops);

}  // namespace texc::vdla
