// VDLA code generation: a LoweredFunc lowered for `--target vdla` (lower/Lower.h: the schedule, then
// lower_blocks, plan_storage, flatten_storage, simplify, remove_no_ops) becomes a VdlaProgram: the
// instruction stream, its micro-op table and the tensor arguments' place in DRAM.
//
// The VDLA pipeline (generate_program in Codegen.cpp lists its steps in order):
//   1. the walk (Codegen.cpp, loop AST -> instruction stream, lowering/Stream.h): the loops are run
//      with concrete values (every extent is a constant), on-chip buffers are placed, and each
//      statement that maps to accelerator work becomes stream entries where the walk meets it:
//      - a copy nest into a vdla.inp / vdla.wgt / vdla.acc buffer from an argument (a cache_read),
//        with a `select(c, X[...], 0)` for zero padding: a pending LOAD (its elements);
//      - a nest of stores of 0 into a vdla.acc buffer (a reduction's init): a pending GEMM reset;
//      - a nest of `tensorized(vdla.gemm)` loops (tensorize(L, vdla.gemm)): a pending GEMM (the
//        micro-op instance of each iteration);
//      - a nest storing an argument from a vdla.acc buffer through `>>`, `<<`, `+`, `*`, `min`,
//        `max` with constants or a second vdla.acc tile and an int8 cast: pending ALU instructions
//        in place on the accumulator tile, then a pending STORE of its low 8 bits;
//      - a loop bound to `vthread` with n threads: each on-chip buffer allocated inside it gets n
//        copies, and each block of one engine's work under it is walked n times in a row, once per
//        thread (VTA's InjectVirtualThread), so thread 1's loads overlap thread 0's GEMMs;
//   2. inject_dma_copies (lowering/InjectDmaCopies.h): each copy -> 2-D LOAD/STORE DMAs;
//   3. fold_uop_loops (lowering/FoldUopLoops.h): each GEMM/ALU nest -> iter_out/iter_in loops over
//      a micro-op kernel, kernels deduplicated in one table loaded once at the start;
//   4. insert_dependency_tokens (lowering/InsertDependencyTokens.h): tokens placed per virtual
//      thread (Tokens.h), syncs and FINISH appended;
//   5. emission: fields checked against their widths, then the stream checked by the simulator's
//      token model; a stream that would deadlock or leave a token behind is an internal error.
// Steps 2-4 work on the instruction stream, not the loop AST: what they decide (DMA shapes,
// micro-op loops, waits) follows from the concrete rows each instruction touches.
//
// What does not map (a stage computed in DRAM, an elementwise stage the ALU cannot do, a tile
// bigger than its buffer, a copy that is not a 2-D pattern, a field too wide) is a UserError
// located at the op, naming the stage or buffer and why.
#pragma once
#include <string>

#include "backends/vdla/Program.h"
#include "backends/vdla/VdlaConfig.h"
#include "ir/Function.h"
#include "ir/SourceLoc.h"

namespace texc::vdla {

/// The program for one lowered op. `loc` locates the diagnostics (the op's definition).
VdlaProgram generate_program(const LoweredFunc& func, const VdlaConfig& config, SourceLoc loc);

}  // namespace texc::vdla
