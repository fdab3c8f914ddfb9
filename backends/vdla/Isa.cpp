#include "backends/vdla/Isa.h"

#include <fmt/format.h>

#include <vector>

#include "ir/Diagnostics.h"

namespace texc::vdla {

const char* opcode_name(Opcode op) {
  switch (op) {
    case Opcode::Load: return "LOAD";
    case Opcode::Store: return "STORE";
    case Opcode::Gemm: return "GEMM";
    case Opcode::Finish: return "FINISH";
    case Opcode::Alu: return "ALU";
  }
  return "?";
}

const char* buffer_name(MemBuffer b) {
  switch (b) {
    case MemBuffer::Uop: return "UOP";
    case MemBuffer::Wgt: return "WGT";
    case MemBuffer::Inp: return "INP";
    case MemBuffer::Acc: return "ACC";
    case MemBuffer::Out: return "OUT";
    case MemBuffer::Acc8: return "ACC8";
  }
  return "?";
}

const char* alu_op_name(AluOp op) {
  switch (op) {
    case AluOp::Min: return "MIN";
    case AluOp::Max: return "MAX";
    case AluOp::Add: return "ADD";
    case AluOp::Shr: return "SHR";
    case AluOp::Mul: return "MUL";
  }
  return "?";
}

const char* engine_name(Engine e) {
  switch (e) {
    case Engine::Load: return "LOAD";
    case Engine::Compute: return "COMPUTE";
    case Engine::Store: return "STORE";
  }
  return "?";
}

const char* token_queue_name(TokenQueue q) {
  switch (q) {
    case TokenQueue::LoadToCompute: return "LOAD->COMPUTE";
    case TokenQueue::ComputeToLoad: return "COMPUTE->LOAD";
    case TokenQueue::ComputeToStore: return "COMPUTE->STORE";
    case TokenQueue::StoreToCompute: return "STORE->COMPUTE";
  }
  return "?";
}

std::string insn_name(const Insn& insn) {
  switch (insn.opcode) {
    case Opcode::Load:
    case Opcode::Store:
      return insn.mem.x_size == 0 ? std::string("sync") : std::string(opcode_name(insn.opcode)) + " " + buffer_name(insn.mem.buffer);
    case Opcode::Gemm: return insn.gemm.loop.reset ? "GEMM reset" : "GEMM";
    case Opcode::Alu: return insn.alu.loop.reset ? "ALU reset" : std::string("ALU ") + alu_op_name(insn.alu.op);
    case Opcode::Finish: return "FINISH";
  }
  return "?";
}

Insn Insn::load(const MemFields& m, Tokens t) {
  Insn i;
  i.opcode = Opcode::Load;
  i.tokens = t;
  i.mem = m;
  return i;
}
Insn Insn::store(const MemFields& m, Tokens t) {
  Insn i = load(m, t);
  i.opcode = Opcode::Store;
  return i;
}
Insn Insn::gemm_op(const GemmFields& g, Tokens t) {
  Insn i;
  i.opcode = Opcode::Gemm;
  i.tokens = t;
  i.gemm = g;
  return i;
}
Insn Insn::alu_op(const AluFields& a, Tokens t) {
  Insn i;
  i.opcode = Opcode::Alu;
  i.tokens = t;
  i.alu = a;
  return i;
}
Insn Insn::finish(Tokens t) {
  Insn i;
  i.opcode = Opcode::Finish;
  i.tokens = t;
  return i;
}
Insn Insn::sync(Engine e, Tokens t) {
  MemFields m;
  m.buffer = e == Engine::Load ? MemBuffer::Inp : e == Engine::Compute ? MemBuffer::Uop : MemBuffer::Out;
  return e == Engine::Store ? store(m, t) : load(m, t);
}

Engine Insn::engine() const {
  switch (opcode) {
    case Opcode::Load: return mem.buffer == MemBuffer::Inp || mem.buffer == MemBuffer::Wgt ? Engine::Load : Engine::Compute;
    case Opcode::Store: return Engine::Store;
    default: return Engine::Compute;
  }
}

namespace {

// The unsigned fields of one instruction format, by name, as pointers into an Insn.
struct FieldRef {
  const BitField* bits;
  uint64_t* value;
};

uint64_t* mem_member(MemFields& m, std::string_view n) {
  if (n == "sram_base") return &m.sram_base;
  if (n == "dram_base") return &m.dram_base;
  if (n == "y_size") return &m.y_size;
  if (n == "x_size") return &m.x_size;
  if (n == "x_stride") return &m.x_stride;
  if (n == "y_pad_before") return &m.y_pad_before;
  if (n == "y_pad_after") return &m.y_pad_after;
  if (n == "x_pad_before") return &m.x_pad_before;
  if (n == "x_pad_after") return &m.x_pad_after;
  return nullptr;
}

uint64_t* loop_member(UopLoop& l, std::string_view n) {
  if (n == "uop_begin") return &l.uop_begin;
  if (n == "uop_end") return &l.uop_end;
  if (n == "iter_out") return &l.iter_out;
  if (n == "iter_in") return &l.iter_in;
  if (n == "acc_factor_out") return &l.acc_factor_out;
  if (n == "acc_factor_in") return &l.acc_factor_in;
  return nullptr;
}

uint64_t* gemm_member(GemmFields& g, std::string_view n) {
  if (uint64_t* p = loop_member(g.loop, n)) return p;
  if (n == "inp_factor_out") return &g.inp_factor_out;
  if (n == "inp_factor_in") return &g.inp_factor_in;
  if (n == "wgt_factor_out") return &g.wgt_factor_out;
  if (n == "wgt_factor_in") return &g.wgt_factor_in;
  return nullptr;
}

uint64_t* alu_member(AluFields& a, std::string_view n) {
  if (uint64_t* p = loop_member(a.loop, n)) return p;
  if (n == "src_factor_out") return &a.src_factor_out;
  if (n == "src_factor_in") return &a.src_factor_in;
  return nullptr;
}

// The plain unsigned fields of `insn` (flags, enums and imm are handled by the callers).
std::vector<FieldRef> unsigned_fields(Insn& insn, const VdlaDerived& d) {
  std::vector<FieldRef> out;
  auto collect = [&](const std::vector<BitField>& format, auto member) {
    for (const BitField& f : format)
      if (uint64_t* p = member(std::string_view(f.name))) out.push_back({&f, p});
  };
  switch (insn.opcode) {
    case Opcode::Load:
    case Opcode::Store: collect(d.mem_fields, [&](std::string_view n) { return mem_member(insn.mem, n); }); break;
    case Opcode::Gemm: collect(d.gemm_fields, [&](std::string_view n) { return gemm_member(insn.gemm, n); }); break;
    case Opcode::Alu: collect(d.alu_fields, [&](std::string_view n) { return alu_member(insn.alu, n); }); break;
    case Opcode::Finish: break;
  }
  return out;
}

uint64_t mask(unsigned width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }

void put(InsnBits& b, unsigned lo, unsigned width, uint64_t v) {
  TEXC_CHECK(width >= 1 && lo / 64 == (lo + width - 1) / 64) << "field straddles a 64-bit word";
  b.words[lo / 64] |= (v & mask(width)) << (lo % 64);
}
uint64_t get(const InsnBits& b, unsigned lo, unsigned width) { return (b.words[lo / 64] >> (lo % 64)) & mask(width); }

const BitField& named(const std::vector<BitField>& f, const char* n) { return VdlaDerived::field(f, n); }

}  // namespace

std::optional<FieldProblem> check_insn_fields(const Insn& insn_in, const VdlaDerived& d) {
  Insn insn = insn_in;
  const char* name = opcode_name(insn.opcode);
  for (const FieldRef& f : unsigned_fields(insn, d))
    if (*f.value > mask(f.bits->width))
      return FieldProblem{name, f.bits->name, int64_t(*f.value), f.bits->width, fmt::format("0..{}", mask(f.bits->width))};
  if (insn.opcode == Opcode::Alu) {
    const BitField& imm = named(d.alu_fields, "imm");
    int64_t lo = -(int64_t(1) << (imm.width - 1)), hi = (int64_t(1) << (imm.width - 1)) - 1;
    if (insn.alu.imm < lo || insn.alu.imm > hi)
      return FieldProblem{name, "imm", insn.alu.imm, imm.width, fmt::format("{}..{}, signed", lo, hi)};
  }
  return std::nullopt;
}

std::optional<FieldProblem> check_uop_fields(const Uop& u, const VdlaDerived& d) {
  const uint64_t values[3] = {u.acc, u.inp, u.wgt};
  for (int i = 0; i < 3; ++i) {
    const BitField& f = d.uop_fields[i];
    if (values[i] > mask(f.width))
      return FieldProblem{"micro-op", f.name, int64_t(values[i]), f.width, fmt::format("0..{}", mask(f.width))};
  }
  return std::nullopt;
}

InsnBits encode_insn(const Insn& insn_in, const VdlaDerived& d) {
  if (auto p = check_insn_fields(insn_in, d)) throw_error(DiagId::VdlaFieldOverflow, SourceLoc{}, p->insn, p->field, p->value, p->width, p->range);
  Insn insn = insn_in;
  InsnBits b;
  put(b, 0, 3, uint64_t(insn.opcode));
  put(b, 3, 1, insn.tokens.pop_prev);
  put(b, 4, 1, insn.tokens.pop_next);
  put(b, 5, 1, insn.tokens.push_prev);
  put(b, 6, 1, insn.tokens.push_next);
  for (const FieldRef& f : unsigned_fields(insn, d)) put(b, f.bits->lo, f.bits->width, *f.value);
  switch (insn.opcode) {
    case Opcode::Load:
    case Opcode::Store: put(b, named(d.mem_fields, "buffer").lo, 3, uint64_t(insn.mem.buffer)); break;
    case Opcode::Gemm: put(b, named(d.gemm_fields, "reset").lo, 1, insn.gemm.loop.reset); break;
    case Opcode::Alu: {
      put(b, named(d.alu_fields, "reset").lo, 1, insn.alu.loop.reset);
      put(b, named(d.alu_fields, "op").lo, 3, uint64_t(insn.alu.op));
      put(b, named(d.alu_fields, "use_imm").lo, 1, insn.alu.use_imm);
      const BitField& imm = named(d.alu_fields, "imm");
      put(b, imm.lo, imm.width, uint64_t(insn.alu.imm));
      break;
    }
    case Opcode::Finish: break;
  }
  return b;
}

uint32_t encode_uop(const Uop& u, const VdlaDerived& d) {
  if (auto p = check_uop_fields(u, d)) throw_error(DiagId::VdlaFieldOverflow, SourceLoc{}, p->insn, p->field, p->value, p->width, p->range);
  const uint64_t values[3] = {u.acc, u.inp, u.wgt};
  uint64_t bits = 0;
  for (int i = 0; i < 3; ++i) bits |= values[i] << d.uop_fields[i].lo;
  return uint32_t(bits);
}

bool decode_insn(const InsnBits& b, const VdlaDerived& d, Insn& out, std::string& why) {
  out = Insn{};
  uint64_t opcode = get(b, 0, 3);
  if (opcode > uint64_t(Opcode::Alu)) {
    why = fmt::format("opcode {} does not exist (LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4)", opcode);
    return false;
  }
  out.opcode = Opcode(opcode);
  out.tokens = {get(b, 3, 1) != 0, get(b, 4, 1) != 0, get(b, 5, 1) != 0, get(b, 6, 1) != 0};
  for (const FieldRef& f : unsigned_fields(out, d)) *f.value = get(b, f.bits->lo, f.bits->width);
  switch (out.opcode) {
    case Opcode::Load:
    case Opcode::Store: {
      uint64_t buf = get(b, named(d.mem_fields, "buffer").lo, 3);
      if (buf > uint64_t(MemBuffer::Acc8)) {
        why = fmt::format("{} buffer {} does not exist (UOP 0, WGT 1, INP 2, ACC 3, OUT 4, ACC8 5)", opcode_name(out.opcode), buf);
        return false;
      }
      out.mem.buffer = MemBuffer(buf);
      break;
    }
    case Opcode::Gemm: out.gemm.loop.reset = get(b, named(d.gemm_fields, "reset").lo, 1) != 0; break;
    case Opcode::Alu: {
      out.alu.loop.reset = get(b, named(d.alu_fields, "reset").lo, 1) != 0;
      uint64_t op = get(b, named(d.alu_fields, "op").lo, 3);
      if (op > uint64_t(AluOp::Mul)) {
        why = fmt::format("ALU op {} does not exist (MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)", op);
        return false;
      }
      out.alu.op = AluOp(op);
      out.alu.use_imm = get(b, named(d.alu_fields, "use_imm").lo, 1) != 0;
      const BitField& imm = named(d.alu_fields, "imm");
      uint64_t raw = get(b, imm.lo, imm.width);
      uint64_t sign = uint64_t(1) << (imm.width - 1);
      out.alu.imm = int64_t(raw ^ sign) - int64_t(sign);  // sign-extend
      break;
    }
    case Opcode::Finish: break;
  }
  return true;
}

Uop decode_uop(uint32_t bits, const VdlaDerived& d) {
  auto f = [&](int i) { return (uint64_t(bits) >> d.uop_fields[i].lo) & mask(d.uop_fields[i].width); };
  return Uop{f(0), f(1), f(2)};
}

}  // namespace texc::vdla
