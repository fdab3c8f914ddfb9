// The readable listing of a VdlaProgram (`f.vdla.txt`): a header with the configuration, the
// tensor arguments and the micro-op table, then one instruction per line —
//   index  engine  opcode  fields  tokens  ; comment
// e.g.
//       7  LOAD     LOAD INP    sram=0 dram=1024 y=4 x=16 stride=56 pad=1,1,0,0  pop_next push_next  ; for ko
// Fields equal to their defaults are still printed, so lines of one opcode line up.
#pragma once
#include <string>

#include "backends/vdla/Program.h"

namespace texc::vdla {

/// One instruction without index, engine or comment: "GEMM uops=0..4 iter=2x8 acc=+16,+1 ...".
std::string format_insn(const Insn& insn);
/// The tokens of an instruction: "pop_prev push_next", or "-" when none.
std::string format_tokens(const Tokens& t);
/// The whole listing.
std::string vdla_listing(const VdlaProgram& program);
/// Writes vdla_listing(program) to `path`; false if it cannot be written.
bool write_vdla_listing(const std::string& path, const VdlaProgram& program);

}  // namespace texc::vdla
