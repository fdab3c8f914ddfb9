// walk_loops — step 2 of the VDLA pipeline (backends/vdla/Codegen.cpp): loop AST -> instruction
// stream (lowering/Stream.h). It places the arguments in DRAM and the on-chip buffers in INP, WGT
// and ACC, runs the loops with concrete values (every extent is a constant), and hands each leaf —
// a statement that is one kind of accelerator work (InjectIntrinsics.h's classify_leaf) — to
// inject_intrinsics, once per virtual thread.
//
// Assumes: `func` is lowered for `--target vdla` (lower/Lower.h) and has been through
// expand_virtual_threads (each vthread loop holds one leaf or one run of leaves of one engine:
// else an internal error); constant extents and allocation sizes; every reduction into vdla.acc is
// tensorized (checked first: a UserError).
// Guarantees:
//   - arguments in parameter order in DRAM, each aligned to the largest element of any buffer; the
//     micro-op table's DRAM place after them (`layout.uop_dram_offset`);
//   - each on-chip buffer at the next free element of its scope while it is allocated, with n
//     copies when marked `attr virtual_thread(v) = n` (a buffer that does not fit is a UserError,
//     VdlaBufferFull, counting the copies);
//   - a `bound(vthread) v in 0..n` loop runs its leaves for thread 0, then thread 1, ..., each with
//     v and the buffers' copies of that thread, the entries tagged with the thread;
//   - a consecutive run of one engine's leaves is injected as one block per thread (as the loops
//     expand_virtual_threads made);
//   - a StoreOut leaf whose outermost loop has 2..16 iterations over whole accumulator and output
//     rows is injected one iteration at a time when `chunk_store_out` is set (the store of one chunk
//     overlaps the ALU work of the next; in a vthread loop, each chunk for every thread in turn);
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
