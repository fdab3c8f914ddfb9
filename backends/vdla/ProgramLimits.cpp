#include "backends/vdla/ProgramLimits.h"

#include <fmt/format.h>

#include <limits>

#include "backends/vdla/CostModel.h"

namespace texc::vdla {

namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}
uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

// Micro-op iterations of a GEMM or ALU loop, saturating.
uint64_t iterations(const UopLoop& l) {
  if (l.uop_end <= l.uop_begin) return 0;
  return sat_mul(sat_mul(l.iter_out, l.iter_in), l.uop_end - l.uop_begin);
}

}  // namespace

uint64_t simulated_work(const Insn& insn, const VdlaConfig& config, const VdlaDerived& derived) {
  const uint64_t lanes = uint64_t(config.batch) * uint64_t(config.block_out);
  switch (insn.opcode) {
    case Opcode::Load:
    case Opcode::Store: {
      const MemFields& m = insn.mem;
      if (m.x_size == 0 || m.y_size == 0) return 1;
      uint64_t rows = insn.opcode == Opcode::Load ? sat_add(sat_add(m.y_pad_before, m.y_size), m.y_pad_after) : m.y_size;
      uint64_t row = insn.opcode == Opcode::Load ? sat_add(sat_add(m.x_pad_before, m.x_size), m.x_pad_after) : m.x_size;
      return sat_mul(sat_mul(rows, row), dram_elem_bytes(m.buffer, derived));
    }
    case Opcode::Gemm: {
      // Each iteration: a micro-op decoded and its rows noted for the hazard check, then
      // batch x block_out dot products of block_in (or batch x block_out zeros on reset).
      uint64_t per = insn.gemm.loop.reset ? lanes : sat_mul(lanes, uint64_t(config.block_in));
      return sat_add(1, sat_mul(iterations(insn.gemm.loop), sat_add(per, 1)));
    }
    case Opcode::Alu: return sat_add(1, sat_mul(iterations(insn.alu.loop), sat_add(lanes, 1)));
    case Opcode::Finish: return 1;
  }
  return 1;
}

std::optional<std::string> check_program_limits(const VdlaProgram& p, const VdlaDerived& d) {
  if (p.dram_bytes > kMaxDramBytes)
    return fmt::format("its DRAM image of {} bytes is larger than the {} bytes (1 GiB) a VDLA program may address", p.dram_bytes,
                       kMaxDramBytes);
  for (const TensorArg& a : p.args) {
    if (a.shape.size() > kMaxArgRank)
      return fmt::format("tensor argument '{}' has {} dimensions; the limit is {}", a.name, a.shape.size(), kMaxArgRank);
    uint64_t bytes = uint64_t(a.type.bytes());
    for (int64_t e : a.shape) bytes = e < 0 ? kSaturated : sat_mul(bytes, uint64_t(e));
    if (bytes > kMaxDramBytes)
      return fmt::format("tensor argument '{}' has {} bytes or more, more than the {}-byte DRAM limit", a.name,
                         bytes == kSaturated ? std::string("2^64") : std::to_string(bytes), kMaxDramBytes);
  }
  uint64_t work = 0;
  for (size_t i = 0; i < p.insns.size(); ++i) {
    uint64_t w = simulated_work(p.insns[i], p.config, d);
    work = sat_add(work, w);
    if (work > kMaxSimulatedWork)
      return fmt::format("its instructions up to instruction {} ({}) ask for more than the {} element operations the simulator "
                         "runs per program (instruction {} alone: {})",
                         i, insn_name(p.insns[i]), kMaxSimulatedWork, i, w == kSaturated ? std::string("more than 2^64") : std::to_string(w));
  }
  return std::nullopt;
}

}  // namespace texc::vdla
