// walk_loops — the first step of the VDLA pipeline (backends/vdla/Codegen.cpp): loop AST ->
// instruction stream (lowering/Stream.h). It places the arguments in DRAM and the on-chip buffers
// in INP, WGT and ACC, runs the loops with concrete values (every extent is a constant), and hands
// each leaf — a statement that is one kind of accelerator work (InjectIntrinsics.h's classify_leaf)
// — to inject_intrinsics. It is also where virtual threads are expanded (VTA's
// InjectVirtualThread): the expansion is decided by the walk's grouping of leaves, so it lives here
// and not in a pass of its own.
//
// Assumes: `func` is lowered for `--target vdla` (lower/Lower.h) with constant extents and
// allocation sizes; every reduction into vdla.acc is tensorized (checked first: a UserError).
// Guarantees:
//   - arguments in parameter order in DRAM, each aligned to the largest element of any buffer; the
//     micro-op table's DRAM place after them (`layout.uop_dram_offset`);
//   - each on-chip buffer at the next free element of its scope while it is allocated, one copy per
//     virtual thread when allocated under a `vthread` loop (a buffer that does not fit is a
//     UserError, VdlaBufferFull, counting the copies);
//   - under a `bound(vthread)` loop of n threads (the loops and conditions around the leaves are
//     evaluated with the thread at 0), each maximal run of consecutive leaves of one engine (LOAD:
//     copies; COMPUTE: resets and GEMMs) and each other leaf is injected n times in a row, once per
//     thread, each time with the thread's value and buffer copies, so thread 1's loads overlap
//     thread 0's GEMMs; nested virtual threads are a UserError;
//   - a StoreOut leaf whose outermost loop has 2..16 iterations over whole accumulator and output
//     rows is injected one iteration at a time when `chunk_store_out` is set (the store of one chunk
//     overlaps the ALU work of the next);
//   - an intermediate tensor in DRAM, a call, or a store none of the leaves accepts is a UserError
//     (VdlaCannotMap) at `loc` naming the stage.
// Leaves alone: everything inject_intrinsics and the later passes decide.
#pragma once
#include <vector>

#include "backends/vdla/Program.h"
#include "backends/vdla/VdlaConfig.h"
#include "backends/vdla/lowering/Stream.h"
#include "ir/Function.h"
#include "ir/SourceLoc.h"

namespace texc::vdla {

struct WalkedOp {
  VdlaProgram layout;  // configuration, arguments and their DRAM offsets, uop_dram_offset
  std::vector<StreamEntry> stream;
};

WalkedOp walk_loops(const LoweredFunc& func, const VdlaConfig& config, SourceLoc loc, bool chunk_store_out);

}  // namespace texc::vdla
