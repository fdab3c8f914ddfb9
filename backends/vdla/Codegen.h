// VDLA code generation: a LoweredFunc lowered for `--target vdla` (lower/Lower.h: the schedule, then
// lower_blocks, plan_storage, flatten_storage, simplify, remove_no_ops) becomes a VdlaProgram: the
// instruction stream, its micro-op table and the tensor arguments' place in DRAM.
//
// The loops are walked with concrete values (every extent is a constant), and each statement that
// maps to accelerator work is emitted as instructions where the walk meets it:
//   - a copy nest into a vdla.inp / vdla.wgt buffer from an argument (a cache_read), with a
//     `select(c, X[...], 0)` for zero padding: 2-D LOADs whose padding fields do the padding;
//   - a nest of stores of 0 into a vdla.acc buffer (a reduction's init): a GEMM with reset;
//   - a nest of `tensorized(vdla.gemm)` loops (tensorize(L, vdla.gemm)): one GEMM instruction, the
//     two outermost loops of the nest folded into its iter_out/iter_in when the accesses are affine
//     in them, the rest enumerated as micro-ops (micro-op kernels deduplicated, the table loaded
//     once at the start);
//   - a nest storing an argument from a vdla.acc buffer through `>>`, `<<`, `+`, `*`, `min`, `max`
//     with constants and an int8 cast: ALU instructions in place on the accumulator tile, then a
//     2-D STORE of its low 8 bits;
//   - a loop bound to `vthread` with n threads: each on-chip buffer allocated inside it gets n
//     copies, and every instruction-producing statement under it is emitted n times in a row, once
//     per thread (VTA's InjectVirtualThread), so thread 1's loads overlap thread 0's GEMMs.
// Dependency tokens are then placed per virtual thread (place_tokens, VdlaTokens.h) and the
// stream is checked by the simulator's token model before it is returned; a stream that would
// deadlock or leave a token behind is an internal error with the instruction index.
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
