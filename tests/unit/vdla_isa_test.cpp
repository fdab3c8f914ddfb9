// Unit tests of backends/vdla/Isa.h: the 128-bit instruction and 32-bit micro-op encodings (bit
// positions of docs/vdla.md), round trips at boundary values, field range errors, and
// field widths that follow the configuration.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "backends/vdla/Isa.h"
#include "ir/Diagnostics.h"

using namespace texc;
using namespace texc::vdla;

namespace {

const VdlaDerived& defaults() {
  static const VdlaDerived d = derive(VdlaConfig{});
  return d;
}

Insn round_trip(const Insn& insn, const VdlaDerived& d = defaults()) {
  Insn out;
  std::string why;
  REQUIRE(decode_insn(encode_insn(insn, d), d, out, why));
  return out;
}

uint64_t bits(const InsnBits& b, unsigned lo, unsigned width) {
  return (b.words[lo / 64] >> (lo % 64)) & ((width == 64 ? 0 : uint64_t(1) << width) - 1);
}

std::string overflow_message(const Insn& insn, const VdlaDerived& d = defaults()) {
  try {
    encode_insn(insn, d);
  } catch (const UserError& e) {
    return e.diag.message;
  }
  return "";
}

MemFields max_mem(MemBuffer b) {
  MemFields m;
  m.buffer = b;
  m.sram_base = 0xFFFF;
  m.dram_base = 0xFFFFFFFF;
  m.y_size = m.x_size = m.x_stride = 0xFFFF;
  m.y_pad_before = m.y_pad_after = m.x_pad_before = m.x_pad_after = 15;
  return m;
}

}  // namespace

TEST_CASE("LOAD/STORE fields sit at the spec's bit positions") {
  MemFields m;
  m.buffer = MemBuffer::Wgt;
  m.sram_base = 0xABCD;
  m.dram_base = 0x12345678;
  m.y_size = 0x1111;
  m.x_size = 0x2222;
  m.x_stride = 0x3333;
  m.y_pad_before = 1;
  m.y_pad_after = 2;
  m.x_pad_before = 3;
  m.x_pad_after = 4;
  InsnBits b = encode_insn(Insn::load(m, {false, true, false, true}), defaults());
  CHECK(bits(b, 0, 3) == 0);  // LOAD
  CHECK(bits(b, 3, 1) == 0);
  CHECK(bits(b, 4, 1) == 1);  // pop_next
  CHECK(bits(b, 5, 1) == 0);
  CHECK(bits(b, 6, 1) == 1);  // push_next
  CHECK(bits(b, 7, 3) == 1);  // WGT
  CHECK(bits(b, 10, 16) == 0xABCD);
  CHECK(bits(b, 26, 32) == 0x12345678);
  CHECK(bits(b, 58, 6) == 0);
  CHECK(bits(b, 64, 16) == 0x1111);
  CHECK(bits(b, 80, 16) == 0x2222);
  CHECK(bits(b, 96, 16) == 0x3333);
  CHECK(bits(b, 112, 4) == 1);
  CHECK(bits(b, 116, 4) == 2);
  CHECK(bits(b, 120, 4) == 3);
  CHECK(bits(b, 124, 4) == 4);
}

TEST_CASE("GEMM and ALU fields sit at the spec's bit positions") {
  GemmFields g;
  g.loop = {true, 0x1ABC, 0x2DEF, 0x3001, 0x2002, 0x501, 0x502};
  g.inp_factor_in = 0x504;
  g.wgt_factor_out = 0x301;
  g.wgt_factor_in = 0x302;
  g.loop.acc_factor_in = 0x502;
  g.inp_factor_out = 0x503;
  InsnBits b = encode_insn(Insn::gemm_op(g), defaults());
  CHECK(bits(b, 0, 3) == 2);
  CHECK(bits(b, 7, 1) == 1);
  CHECK(bits(b, 8, 13) == 0x1ABC);
  CHECK(bits(b, 21, 14) == 0x2DEF);
  CHECK(bits(b, 35, 14) == 0x3001);
  CHECK(bits(b, 49, 14) == 0x2002);
  CHECK(bits(b, 64, 11) == 0x501);
  CHECK(bits(b, 75, 11) == 0x502);
  CHECK(bits(b, 86, 11) == 0x503);
  CHECK(bits(b, 97, 11) == 0x504);
  CHECK(bits(b, 108, 10) == 0x301);
  CHECK(bits(b, 118, 10) == 0x302);

  AluFields a;
  a.loop = {false, 3, 9, 7, 5, 0x7FF, 0x400};
  a.src_factor_out = 0x123;
  a.src_factor_in = 0x456;
  a.op = AluOp::Shr;
  a.use_imm = true;
  a.imm = -2;
  b = encode_insn(Insn::alu_op(a, {true, false, true, false}), defaults());
  CHECK(bits(b, 0, 3) == 4);
  CHECK(bits(b, 3, 1) == 1);
  CHECK(bits(b, 5, 1) == 1);
  CHECK(bits(b, 86, 11) == 0x123);
  CHECK(bits(b, 97, 11) == 0x456);
  CHECK(bits(b, 108, 3) == 3);
  CHECK(bits(b, 111, 1) == 1);
  CHECK(bits(b, 112, 16) == 0xFFFE);
}

TEST_CASE("micro-op fields: acc 10:0, inp 21:11, wgt 31:22") {
  CHECK(encode_uop({1, 0, 0}, defaults()) == 1u);
  CHECK(encode_uop({0, 1, 0}, defaults()) == 1u << 11);
  CHECK(encode_uop({0, 0, 1}, defaults()) == 1u << 22);
  CHECK(encode_uop({2047, 2047, 1023}, defaults()) == 0xFFFFFFFFu);
  for (Uop u : {Uop{0, 0, 0}, Uop{2047, 0, 1023}, Uop{5, 2047, 7}, Uop{2047, 2047, 1023}})
    CHECK(decode_uop(encode_uop(u, defaults()), defaults()) == u);
}

TEST_CASE("round trip of every opcode at zero and at the largest values") {
  for (MemBuffer buf : {MemBuffer::Uop, MemBuffer::Wgt, MemBuffer::Inp, MemBuffer::Acc, MemBuffer::Out, MemBuffer::Acc8}) {
    Insn load = Insn::load(max_mem(buf), {false, true, false, true});
    CHECK(round_trip(load) == load);
    Insn store = Insn::store(max_mem(buf), {true, false, true, false});
    CHECK(round_trip(store) == store);
    MemFields zero;
    zero.buffer = buf;
    CHECK(round_trip(Insn::load(zero)) == Insn::load(zero));
  }
  GemmFields g;
  g.loop = {true, 8191, 16383, 16383, 16383, 2047, 2047};
  g.inp_factor_out = g.inp_factor_in = 2047;
  g.wgt_factor_out = g.wgt_factor_in = 1023;
  Insn gemm = Insn::gemm_op(g, {true, true, true, true});
  CHECK(round_trip(gemm) == gemm);
  CHECK(round_trip(Insn::gemm_op(GemmFields{})) == Insn::gemm_op(GemmFields{}));
  for (AluOp op : {AluOp::Min, AluOp::Max, AluOp::Add, AluOp::Shr, AluOp::Mul})
    for (int64_t imm : {int64_t(-32768), int64_t(-1), int64_t(0), int64_t(1), int64_t(32767)}) {
      AluFields a;
      a.loop = {false, 8191, 16383, 16383, 1, 2047, 0};
      a.src_factor_out = 2047;
      a.src_factor_in = 1;
      a.op = op;
      a.use_imm = imm != 0;
      a.imm = imm;
      Insn alu = Insn::alu_op(a, {true, false, false, true});
      CHECK(round_trip(alu) == alu);
    }
  CHECK(round_trip(Insn::finish({false, false, true, true})) == Insn::finish({false, false, true, true}));
}

TEST_CASE("a field one past its width is an error naming the field and its width") {
  MemFields m;
  m.x_stride = 65536;
  CHECK(overflow_message(Insn::load(m)) == "VDLA LOAD instruction: field 'x_stride' is 65536, which does not fit its 16 bits (0..65535)");
  m = MemFields{};
  m.x_pad_before = 16;
  CHECK(overflow_message(Insn::store(m)).find("field 'x_pad_before' is 16, which does not fit its 4 bits (0..15)") != std::string::npos);
  m = MemFields{};
  m.dram_base = uint64_t(1) << 32;
  CHECK(overflow_message(Insn::load(m)).find("'dram_base'") != std::string::npos);
  GemmFields g;
  g.loop.uop_begin = 8192;
  CHECK(overflow_message(Insn::gemm_op(g)) == "VDLA GEMM instruction: field 'uop_begin' is 8192, which does not fit its 13 bits (0..8191)");
  g = GemmFields{};
  g.wgt_factor_in = 1024;
  CHECK(overflow_message(Insn::gemm_op(g)).find("'wgt_factor_in' is 1024, which does not fit its 10 bits") != std::string::npos);
  g = GemmFields{};
  g.loop.iter_out = 16384;
  CHECK(overflow_message(Insn::gemm_op(g)).find("'iter_out' is 16384, which does not fit its 14 bits") != std::string::npos);
  AluFields a;
  a.imm = -32769;
  CHECK(overflow_message(Insn::alu_op(a)) == "VDLA ALU instruction: field 'imm' is -32769, which does not fit its 16 bits (-32768..32767, signed)");
  a.imm = 32768;
  CHECK(overflow_message(Insn::alu_op(a)).find("'imm' is 32768") != std::string::npos);
  // check_insn_fields reports the same without throwing.
  auto p = check_insn_fields(Insn::alu_op(a), defaults());
  REQUIRE(p);
  CHECK(p->field == "imm");
  CHECK(p->width == 16);
  CHECK_FALSE(check_insn_fields(Insn::finish(), defaults()));
  auto u = check_uop_fields({2048, 0, 0}, defaults());
  REQUIRE(u);
  CHECK(u->field == "acc");
  CHECK(u->width == 11);
}

TEST_CASE("decode rejects opcodes, buffers and ALU ops that do not exist") {
  Insn out;
  std::string why;
  InsnBits b;
  b.words[0] = 5;
  CHECK_FALSE(decode_insn(b, defaults(), out, why));
  CHECK(why.find("opcode 5 does not exist") != std::string::npos);
  b.words[0] = 0 | (6u << 7);  // LOAD, buffer 6
  CHECK_FALSE(decode_insn(b, defaults(), out, why));
  CHECK(why.find("buffer 6 does not exist") != std::string::npos);
  b.words[0] = 4;
  b.words[1] = uint64_t(7) << (108 - 64);  // ALU op 7
  CHECK_FALSE(decode_insn(b, defaults(), out, why));
  CHECK(why.find("ALU op 7 does not exist") != std::string::npos);
}

TEST_CASE("field widths follow the configuration") {
  VdlaConfig cfg;
  cfg.acc_buffer_bytes = 64 * 1024;  // 1024 rows: 10-bit acc indices
  cfg.uop_buffer_bytes = 8 * 1024;   // 2048 micro-ops: 11-bit uop_begin
  VdlaDerived d = derive(cfg);
  CHECK(VdlaDerived::field(d.gemm_fields, "uop_begin").width == 11);
  CHECK(VdlaDerived::field(d.gemm_fields, "uop_end").width == 12);
  CHECK(VdlaDerived::field(d.gemm_fields, "acc_factor_out").width == 10);
  CHECK(VdlaDerived::field(d.gemm_fields, "inp_factor_out").lo == 84);
  CHECK(d.uop_fields[1].lo == 10);
  GemmFields g;
  g.loop = {false, 2047, 4095, 3, 4, 1023, 1023};
  g.inp_factor_out = 2047;
  CHECK(round_trip(Insn::gemm_op(g), d) == Insn::gemm_op(g));
  g.loop.acc_factor_out = 1024;
  CHECK(overflow_message(Insn::gemm_op(g), d).find("'acc_factor_out' is 1024, which does not fit its 10 bits") != std::string::npos);
  CHECK(decode_uop(encode_uop({1023, 2047, 1023}, d), d) == Uop{1023, 2047, 1023});
}

TEST_CASE("engines and names") {
  MemFields m;
  m.buffer = MemBuffer::Inp;
  CHECK(Insn::load(m).engine() == Engine::Load);
  m.buffer = MemBuffer::Wgt;
  CHECK(Insn::load(m).engine() == Engine::Load);
  for (MemBuffer b : {MemBuffer::Uop, MemBuffer::Acc, MemBuffer::Acc8}) {
    m.buffer = b;
    CHECK(Insn::load(m).engine() == Engine::Compute);
  }
  CHECK(Insn::store(m).engine() == Engine::Store);
  CHECK(Insn::gemm_op({}).engine() == Engine::Compute);
  CHECK(Insn::finish().engine() == Engine::Compute);
  for (Engine e : {Engine::Load, Engine::Compute, Engine::Store}) {
    Insn s = Insn::sync(e, {});
    CHECK(s.engine() == e);
    CHECK(s.is_sync());
    CHECK(insn_name(s) == "sync");
  }
}
