// The VDLA cycle model (docs/vdla.md, "The instruction set"): how long each instruction occupies
// its engine, and which instructions use the one shared DRAM port.
//
//   LOAD/STORE   y_size * (dram_latency_cycles + ceil(x_size * element bytes / dram_bytes_per_cycle)),
//                holding the DRAM port for all of it (padding costs nothing: it moves no DRAM bytes)
//   sync         (LOAD/STORE with x_size 0) 1 cycle, no DRAM port
//   GEMM         iter_out * iter_in * (uop_end - uop_begin) + 4   (reset or not)
//   ALU          2 per micro-op iteration (1 with use_imm) + 4
//   FINISH       1
#pragma once
#include <cstdint>

#include "backends/vdla/Isa.h"

namespace texc::vdla {

constexpr uint64_t kGemmOverheadCycles = 4;
constexpr uint64_t kAluOverheadCycles = 4;
constexpr uint64_t kSyncCycles = 1;

/// Bytes of one element of `b` on the DRAM side (ACC8: int8 rows; OUT: int8 rows).
uint64_t dram_elem_bytes(MemBuffer b, const VdlaDerived& d);
/// Micro-op iterations of a GEMM or ALU: iter_out * iter_in * (uop_end - uop_begin), 0 if end < begin.
uint64_t uop_iterations(const UopLoop& loop);
/// DRAM bytes a LOAD/STORE moves (no padding).
uint64_t dma_bytes(const Insn& insn, const VdlaDerived& d);
/// Whether the instruction holds the shared DRAM port while it runs (a LOAD/STORE that is not a sync).
bool uses_dram_port(const Insn& insn);
/// Cycles the instruction occupies its engine, as in the table above.
uint64_t insn_cycles(const Insn& insn, const VdlaConfig& cfg, const VdlaDerived& d);

}  // namespace texc::vdla
