// ProgramLimits: what a VDLA program may ask of the machine that runs it, checked from its fields
// alone before anything is allocated or simulated (docs/vdla-format.md, "Limits").
//
// A .vdla file is read by vdla-sim and texc from anywhere: a forged one may say its DRAM image has
// 2^40 bytes, give a tensor argument a shape whose byte size overflows 64 bits, or hold GEMMs that
// each iterate 2^14 x 2^14 times over the whole micro-op buffer. check_program_limits refuses
// such a program with the field and the limit:
//  - the DRAM image is at most kMaxDramBytes;
//  - a tensor argument has at most kMaxArgRank dimensions and its byte size fits in 64 bits (it
//    must then also lie inside the DRAM image: the reader checks that);
//  - the simulated work — on-chip elements a LOAD or STORE moves, multiply-accumulates of GEMM
//    micro-op iterations, lanes of ALU micro-op iterations, summed over the whole stream — is at
//    most kMaxSimulatedWork (about a minute of simulation), so a run always ends in bounded time.
// The bounds of each access against the buffers stay the simulator's (Datapath.h): they depend on
// the micro-ops as loaded at run time.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "backends/vdla/Program.h"

namespace texc::vdla {

inline constexpr uint64_t kMaxDramBytes = uint64_t(1) << 30;      // 1 GiB
inline constexpr uint64_t kMaxArgRank = 64;                        // as texc's tensors
inline constexpr uint64_t kMaxSimulatedWork = uint64_t(1) << 36;  // elements / MACs / lanes

/// The work the simulator does for one instruction (saturating at UINT64_MAX), in the units above.
uint64_t simulated_work(const Insn& insn, const VdlaConfig& config, const VdlaDerived& derived);

/// Why `program` exceeds a limit (a complete sentence fragment naming the field, its value and the
/// limit), or nullopt. `derived` is derive(program.config).
std::optional<std::string> check_program_limits(const VdlaProgram& program, const VdlaDerived& derived);

}  // namespace texc::vdla
