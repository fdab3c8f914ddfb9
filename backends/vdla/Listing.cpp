#include "backends/vdla/Listing.h"

#include <fmt/format.h>

#include <fstream>

namespace texc::vdla {

std::string format_tokens(const Tokens& t) {
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(t.pop_prev, "pop_prev");
  add(t.pop_next, "pop_next");
  add(t.push_prev, "push_prev");
  add(t.push_next, "push_next");
  return s.empty() ? "-" : s;
}

static std::string format_loop(const UopLoop& l) {
  return fmt::format("{}uops={}..{} iter={}x{} acc=+{},+{}", l.reset ? "reset " : "", l.uop_begin, l.uop_end, l.iter_out,
                     l.iter_in, l.acc_factor_out, l.acc_factor_in);
}

std::string format_insn(const Insn& insn) {
  switch (insn.opcode) {
    case Opcode::Load:
    case Opcode::Store: {
      const MemFields& m = insn.mem;
      std::string head = fmt::format("{:<5} {:<4}", opcode_name(insn.opcode), buffer_name(m.buffer));
      if (m.x_size == 0) return head + "  sync";
      return fmt::format("{}  sram={} dram={} y={} x={} stride={} pad={},{},{},{}", head, m.sram_base, m.dram_base, m.y_size,
                         m.x_size, m.x_stride, m.y_pad_before, m.y_pad_after, m.x_pad_before, m.x_pad_after);
    }
    case Opcode::Gemm: {
      const GemmFields& g = insn.gemm;
      return fmt::format("{:<10}  {} inp=+{},+{} wgt=+{},+{}", "GEMM", format_loop(g.loop), g.inp_factor_out, g.inp_factor_in,
                         g.wgt_factor_out, g.wgt_factor_in);
    }
    case Opcode::Alu: {
      const AluFields& a = insn.alu;
      std::string operand = a.use_imm ? fmt::format("imm={}", a.imm) : fmt::format("src=+{},+{}", a.src_factor_out, a.src_factor_in);
      return fmt::format("ALU {:<6}  {} {}", alu_op_name(a.op), format_loop(a.loop), operand);
    }
    case Opcode::Finish: return "FINISH";
  }
  return "?";
}

std::string vdla_listing(const VdlaProgram& p) {
  std::string out = "# VDLA program\n# configuration:";
  for (const VdlaConfigKey& k : vdla_config_keys()) out += fmt::format(" {}={}", k.name, p.config.*k.member);
  out += fmt::format("\n# DRAM image: {} bytes\n", p.dram_bytes);
  for (const TensorArg& a : p.args) {
    std::string shape;
    for (int64_t e : a.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(e);
    out += fmt::format("# {} {}: {}[{}] at DRAM byte {} ({} bytes)\n", a.is_output ? "output" : "input ", a.name, a.type.str(), shape,
                       a.dram_offset, a.bytes());
  }
  out += fmt::format("# micro-ops: {} at DRAM byte {}\n", p.uops.size(), p.uop_dram_offset);
  for (size_t i = 0; i < p.uops.size(); ++i)
    out += fmt::format("#   uop {:>5}: acc={} inp={} wgt={}\n", i, p.uops[i].acc, p.uops[i].inp, p.uops[i].wgt);
  out += fmt::format("# instructions: {}\n", p.insns.size());
  for (size_t i = 0; i < p.insns.size(); ++i) {
    const Insn& insn = p.insns[i];
    std::string line = fmt::format("{:>6}  {:<7}  {:<72}  {}", i, engine_name(insn.engine()), format_insn(insn), format_tokens(insn.tokens));
    if (!p.comment(i).empty()) line += "  ; " + p.comment(i);
    out += line + "\n";
  }
  return out;
}

bool write_vdla_listing(const std::string& path, const VdlaProgram& program) {
  std::ofstream out(path);
  if (!out) return false;
  out << vdla_listing(program);
  return bool(out.flush());
}

}  // namespace texc::vdla
