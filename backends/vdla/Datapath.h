// The VDLA datapath: the on-chip buffers and what one instruction does to them and to DRAM,
// bit-exactly (docs/vdla.md, "The instruction set"). No notion of time: Simulator.h decides when
// each instruction runs.
//
// - LOAD fills a dense SRAM region of (y_pad_before + y_size + y_pad_after) rows of
//   (x_pad_before + x_size + x_pad_after) elements from sram_base; padding is zero. ACC8 loads
//   int8 DRAM rows sign-extended into int32 accumulator rows; UOP loads 32-bit micro-ops.
// - STORE (buffer OUT) writes the low 8 bits of accumulator rows (no saturation); no padding.
// - GEMM: ACC[acc] += INP[inp] · WGT[wgt]ᵀ (int8 x int8, int32 wrap-around), or = 0 with reset.
// - ALU: ACC[dst] = op(ACC[dst], use_imm ? imm : ACC[src]) over int32 lanes, wrapping. SHR by a
//   negative amount shifts left; right shifts by 32 or more give the sign (0 or -1), left shifts
//   by 32 or more give 0. reset sets ACC[dst] = 0.
// - x_size 0 (a sync) and FINISH do nothing.
// Every SRAM, micro-op and DRAM access is bounds-checked: execute() returns the problem as text
// instead of touching memory out of range.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/vdla/Isa.h"

namespace texc::vdla {

class Datapath {
 public:
  Datapath(const VdlaConfig& cfg, const VdlaDerived& d);

  /// Executes one instruction on DRAM `dram`; nullopt on success, else why it is invalid.
  std::optional<std::string> execute(const Insn& insn, std::vector<uint8_t>& dram);

  const std::vector<int32_t>& acc() const { return acc_; }
  /// Micro-op `i` of the UOP buffer, decoded (zero past its end).
  Uop uop(uint64_t i) const;

 private:
  std::optional<std::string> load(const MemFields& m, std::vector<uint8_t>& dram);
  std::optional<std::string> store(const MemFields& m, std::vector<uint8_t>& dram);
  std::optional<std::string> gemm(const GemmFields& g);
  std::optional<std::string> alu(const AluFields& a);

  const VdlaDerived& d_;
  int64_t batch_, block_in_, block_out_;
  std::vector<int8_t> inp_, wgt_;
  std::vector<int32_t> acc_;
  std::vector<uint32_t> uop_;
};

/// One lane of an ALU op (exposed for tests).
int32_t alu_lane(AluOp op, int32_t dst, int32_t src);

}  // namespace texc::vdla
