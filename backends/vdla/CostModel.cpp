#include "backends/vdla/CostModel.h"

namespace texc::vdla {

uint64_t dram_elem_bytes(MemBuffer b, const VdlaDerived& d) {
  switch (b) {
    case MemBuffer::Uop: return uint64_t(d.uop_elem_bytes);
    case MemBuffer::Wgt: return uint64_t(d.wgt_elem_bytes);
    case MemBuffer::Inp: return uint64_t(d.inp_elem_bytes);
    case MemBuffer::Acc: return uint64_t(d.acc_elem_bytes);
    case MemBuffer::Out:
    case MemBuffer::Acc8: return uint64_t(d.out_elem_bytes);
  }
  return 0;
}

uint64_t uop_iterations(const UopLoop& l) {
  if (l.uop_end < l.uop_begin) return 0;
  return l.iter_out * l.iter_in * (l.uop_end - l.uop_begin);
}

uint64_t dma_bytes(const Insn& insn, const VdlaDerived& d) {
  return insn.mem.y_size * insn.mem.x_size * dram_elem_bytes(insn.mem.buffer, d);
}

bool uses_dram_port(const Insn& insn) {
  return (insn.opcode == Opcode::Load || insn.opcode == Opcode::Store) && insn.mem.x_size != 0;
}

uint64_t insn_cycles(const Insn& insn, const VdlaConfig& cfg, const VdlaDerived& d) {
  switch (insn.opcode) {
    case Opcode::Load:
    case Opcode::Store: {
      if (insn.mem.x_size == 0) return kSyncCycles;
      uint64_t row_bytes = insn.mem.x_size * dram_elem_bytes(insn.mem.buffer, d);
      uint64_t bpc = uint64_t(cfg.dram_bytes_per_cycle);
      return insn.mem.y_size * (uint64_t(cfg.dram_latency_cycles) + (row_bytes + bpc - 1) / bpc);
    }
    case Opcode::Gemm: return uop_iterations(insn.gemm.loop) + kGemmOverheadCycles;
    case Opcode::Alu: return uop_iterations(insn.alu.loop) * (insn.alu.use_imm ? 1 : 2) + kAluOverheadCycles;
    case Opcode::Finish: return 1;
  }
  return 0;
}

}  // namespace texc::vdla
