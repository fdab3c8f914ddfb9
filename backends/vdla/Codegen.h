// VDLA code generation: a LoweredFunc lowered for `--target vdla` (lower/Lower.h: the schedule, then
// lower_blocks, plan_storage, flatten_storage, simplify, remove_no_ops) becomes a VdlaProgram: the
// instruction stream, its micro-op table and the tensor arguments' place in DRAM.
//
// The VDLA pipeline (generate_program in Codegen.cpp lists its steps in order; the passes are in
// lowering/, each with a text test in tests/passes/vdla/):
//   1. expand_virtual_threads (loop AST -> loop AST, VTA's InjectVirtualThread): each loop bound
//      to `vthread` with n threads is sunk to the leaves under it, one loop per run of one
//      engine's work; the buffers allocated under it are marked for n copies;
//   2. walk_loops (loop AST -> instruction stream): the loops are run with concrete values (every
//      extent is a constant), on-chip buffers placed, and each leaf — a statement that is one kind
//      of accelerator work — becomes pending stream entries, once per virtual thread in a row, by
//      inject_intrinsics (VTA's InjectALUIntrin and the GEMM tensorize lowering):
//      - a copy nest into a vdla.inp / vdla.wgt / vdla.acc buffer from an argument (a cache_read),
//        with a `select(c, X[...], 0)` for zero padding: a pending LOAD (its elements);
//      - a nest of stores of 0 into a vdla.acc buffer (a reduction's init): a GEMM reset nest;
//      - a nest of `tensorized(vdla.gemm)` loops (tensorize(L, vdla.gemm)): a GEMM nest (the
//        micro-op instance of each iteration);
//      - a nest storing an argument from a vdla.acc buffer through `>>`, `<<`, `+`, `*`, `min`,
//        `max` with constants or a second vdla.acc tile and an int8 cast: ALU nests in place on
//        the accumulator tile, then a pending STORE of its low 8 bits;
//   3. inject_dma_copies (VTA's InjectDMAIntrin): each pending copy -> 2-D LOAD/STORE DMAs;
//   4. fold_uop_loops (VTA's FoldUopLoop): each GEMM/ALU nest -> iter_out/iter_in loops over a
//      micro-op kernel, kernels deduplicated in one table loaded once at the start;
//   5. insert_dependency_tokens (VTA's InjectCoProcSync): tokens placed per virtual thread
//      (Tokens.h), syncs and FINISH appended;
//   then emission: fields checked against their widths, and the stream checked by the simulator's
//   token model; a stream that would deadlock or leave a token behind is an internal error.
// Steps 3-5 work on the instruction stream, not the loop AST: what they decide (DMA shapes,
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
