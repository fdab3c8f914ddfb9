// Unit tests of backends/vdla/Simulator.h (with Datapath.h, CostModel.h and Trace.h): hand-written
// instruction streams with known results and hand-computed cycle counts; deadlocking, unbalanced
// and otherwise broken streams reported with instruction, engine and queue (never hanging);
// padding; ALU ops; the trace file.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "backends/vdla/CostModel.h"
#include "backends/vdla/Datapath.h"
#include "backends/vdla/Json.h"
#include "backends/vdla/ProgramFile.h"
#include "backends/vdla/Simulator.h"
#include "backends/vdla/Trace.h"
#include "vdla_test_programs.h"

using namespace texc;
using namespace texc::vdla;
using namespace texc::vdla::test;

namespace {

std::vector<uint8_t> one_tile_dram(const VdlaProgram& p) {
  std::vector<uint8_t> dram = make_dram_image(p);
  for (int k = 0; k < 16; ++k) dram[64 + k] = uint8_t(x_value(k));
  for (int oc = 0; oc < 16; ++oc)
    for (int k = 0; k < 16; ++k) dram[256 + oc * 16 + k] = uint8_t(w_value(oc, k));
  return dram;
}

// A program of the given instructions over `dram_bytes` of DRAM, no micro-ops.
VdlaProgram program(std::vector<Insn> insns, uint64_t dram_bytes = 4096) {
  VdlaProgram p;
  p.insns = std::move(insns);
  p.dram_bytes = dram_bytes;
  return p;
}

void put_i32(std::vector<uint8_t>& dram, size_t at, int32_t v) {
  for (int b = 0; b < 4; ++b) dram[at + b] = uint8_t(uint32_t(v) >> (8 * b));
}

}  // namespace

TEST_CASE("LOAD -> GEMM -> STORE with tokens: the product, and the cycles by hand") {
  VdlaProgram p = one_tile_gemm_program();
  p = parse_vdla(serialize_vdla(p), "one_tile.vdla");  // the simulator runs what the file holds
  std::vector<uint8_t> dram = one_tile_dram(p);
  SimResult r = simulate(p, dram);
  REQUIRE_MESSAGE(r.ok(), r.error.message);
  for (int oc = 0; oc < 16; ++oc) {
    int32_t sum = 0;
    for (int k = 0; k < 16; ++k) sum += int32_t(x_value(k)) * int32_t(w_value(oc, k));
    CHECK(int8_t(dram[512 + oc]) == int8_t(uint32_t(sum) & 0xFF));
  }
  // By hand (latency 32, 8 bytes/cycle; ties go to the lower instruction index):
  //   0 LOAD UOP   COMPUTE  0..33    32 + ceil(4/8)     holds the DRAM port
  //   1 LOAD INP   LOAD    33..67    32 + 16/8          waits for the port
  //   3 GEMM reset COMPUTE 33..38    1 + 4
  //   2 LOAD WGT   LOAD    67..131   32 + 256/8         pushes LOAD->COMPUTE at 131
  //   4 GEMM       COMPUTE 131..136  1 + 4              pushes COMPUTE->STORE at 136
  //   5 STORE OUT  STORE   136..170  32 + 16/8          pushes STORE->COMPUTE at 170
  //   6 sync       COMPUTE 170..171
  //   7 FINISH     COMPUTE 171..172
  CHECK(r.total_cycles == 172);
  CHECK(r.busy_cycles[int(Engine::Load)] == 34 + 64);
  CHECK(r.busy_cycles[int(Engine::Compute)] == 33 + 5 + 5 + 1 + 1);
  CHECK(r.busy_cycles[int(Engine::Store)] == 34);
  CHECK(r.insn_counts[int(Engine::Compute)] == 5);
  CHECK(r.gemm_cycles == 1);
  CHECK(r.gemm_utilization == doctest::Approx(1.0 / 172));
  CHECK(r.dram_busy_cycles == 33 + 34 + 64 + 34);
  CHECK(r.dram_bytes[int(MemBuffer::Uop)] == 4);
  CHECK(r.dram_bytes[int(MemBuffer::Inp)] == 16);
  CHECK(r.dram_bytes[int(MemBuffer::Wgt)] == 256);
  CHECK(r.dram_bytes[int(MemBuffer::Out)] == 16);
  CHECK(r.executed == 8);
  std::string report = format_sim_report(r);
  CHECK(report.find("cycles: 172") != std::string::npos);
  CHECK(report.find("GEMM utilization: 0.6%") != std::string::npos);
}

TEST_CASE("the DRAM port and the cost model follow the configuration") {
  VdlaProgram p = one_tile_gemm_program();
  p.config.dram_latency_cycles = 0;
  p.config.dram_bytes_per_cycle = 64;
  std::vector<uint8_t> dram = one_tile_dram(p);
  SimResult r = simulate(p, dram);
  REQUIRE_MESSAGE(r.ok(), r.error.message);
  // UOP 0..1, INP 1..2 (port), reset 1..6, WGT 2..6, GEMM 6..11, STORE 11..12, sync 12..13, FINISH 13..14.
  CHECK(r.total_cycles == 14);
  VdlaDerived d = derive(VdlaConfig{});
  MemFields rows = mem(MemBuffer::Acc, 0, 0, 3, 5, 5);
  CHECK(insn_cycles(Insn::load(rows), VdlaConfig{}, d) == 3 * (32 + 5 * 64 / 8));
  rows.x_size = 0;
  CHECK(insn_cycles(Insn::load(rows), VdlaConfig{}, d) == 1);
  GemmFields g = gemm(2, 7);
  g.loop.iter_out = 3;
  g.loop.iter_in = 4;
  CHECK(insn_cycles(Insn::gemm_op(g), VdlaConfig{}, d) == 3 * 4 * 5 + 4);
  AluFields a;
  a.loop = g.loop;
  CHECK(insn_cycles(Insn::alu_op(a), VdlaConfig{}, d) == 2 * 60 + 4);
  a.use_imm = true;
  CHECK(insn_cycles(Insn::alu_op(a), VdlaConfig{}, d) == 60 + 4);
}

TEST_CASE("a deadlocking stream is reported with instruction, engine and queue") {
  VdlaProgram p = program({
      Insn::load(mem(MemBuffer::Inp, 0, 0, 1, 1, 1), kPopNext),  // 0 LOAD waits for COMPUTE->LOAD
      Insn::gemm_op(gemm(0, 0), {true, false, true, false}),     // 1 COMPUTE waits for LOAD->COMPUTE, then would push
      Insn::finish(),
  });
  std::vector<uint8_t> dram(4096);
  SimResult r = simulate(p, dram);
  REQUIRE(r.error.kind == SimError::Kind::Deadlock);
  CHECK(r.error.insn_index == 0);
  CHECK(r.error.engine == Engine::Load);
  CHECK(r.error.queue == TokenQueue::ComputeToLoad);
  CHECK(r.error.message ==
        "deadlock at cycle 0: no engine can progress (0 of 3 instructions executed); instruction 0 (LOAD engine, LOAD INP) waits "
        "for a token on COMPUTE->LOAD, which is empty; instruction 1 (COMPUTE engine, GEMM) waits for a token on LOAD->COMPUTE, "
        "which is empty");
  CHECK(r.executed == 0);
  CHECK(format_sim_report(r).rfind("error: deadlock at cycle 0: no engine can progress", 0) == 0);
  // The same without data (a token-only check): no DRAM needed.
  std::vector<uint8_t> none;
  SimOptions tokens_only;
  tokens_only.execute_datapath = false;
  SimResult t = simulate(p, none, tokens_only);
  CHECK(t.error.kind == SimError::Kind::Deadlock);
  CHECK(t.error.message == r.error.message);
  VdlaProgram good = one_tile_gemm_program();
  SimResult g = simulate(good, none, tokens_only);
  CHECK_MESSAGE(g.ok(), g.error.message);
  CHECK(g.total_cycles == 172);
}

TEST_CASE("a deadlock after some progress, and one caused by a full command queue") {
  // STORE waits for a second COMPUTE->STORE token that never comes.
  VdlaProgram p = program({
      Insn::gemm_op(gemm(0, 0), kPushNext),
      Insn::store(mem(MemBuffer::Out, 0, 0, 1, 1, 1), kPopPrev),
      Insn::sync(Engine::Store, kPopPrev),
      Insn::finish(),
  });
  std::vector<uint8_t> dram(4096);
  SimResult r = simulate(p, dram);
  REQUIRE(r.error.kind == SimError::Kind::Deadlock);
  CHECK(r.error.insn_index == 2);
  CHECK(r.error.engine == Engine::Store);
  CHECK(r.error.queue == TokenQueue::ComputeToStore);
  CHECK(r.executed == 3);

  // Four GEMMs wait for four LOAD tokens that come after them in the stream. With command queues
  // of 2, fetch stalls on the fourth GEMM and never reaches the loads.
  std::vector<Insn> insns;
  for (int i = 0; i < 4; ++i) insns.push_back(Insn::gemm_op(gemm(0, 0), kPopPrev));
  for (int i = 0; i < 4; ++i) insns.push_back(Insn::sync(Engine::Load, kPushNext));
  insns.push_back(Insn::finish());
  VdlaProgram q = program(insns);
  SimResult fine = simulate(q, dram);
  CHECK_MESSAGE(fine.ok(), fine.error.message);
  q.config.command_queue_depth = 2;
  r = simulate(q, dram);
  REQUIRE(r.error.kind == SimError::Kind::Deadlock);
  CHECK(r.error.insn_index == 0);
  CHECK(r.error.engine == Engine::Compute);
  CHECK(r.error.queue == TokenQueue::LoadToCompute);
  CHECK(r.error.message.find("fetch is stalled at instruction 3: the COMPUTE command queue is full (2 instructions)") != std::string::npos);
}

TEST_CASE("an unbalanced stream is reported with the queue and the instruction that pushed the surplus") {
  VdlaProgram p = program({
      Insn::sync(Engine::Load, kPushNext),
      Insn::sync(Engine::Compute, kPopPrev),
      Insn::load(mem(MemBuffer::Inp, 0, 0, 1, 1, 1), kPushNext),  // 2: never popped
      Insn::sync(Engine::Compute, {true, false, false, false}),
      Insn::sync(Engine::Compute, {false, false, true, false}),  // 4: pushes COMPUTE->LOAD, never popped
      Insn::finish(),
  });
  // Instruction 3 pops the token of 2; the surplus is instruction 4's on COMPUTE->LOAD.
  std::vector<uint8_t> dram(4096);
  SimResult r = simulate(p, dram);
  REQUIRE(r.error.kind == SimError::Kind::Unbalanced);
  CHECK(r.error.insn_index == 4);
  CHECK(r.error.engine == Engine::Compute);
  CHECK(r.error.queue == TokenQueue::ComputeToLoad);
  CHECK(r.error.message ==
        "unbalanced token queue COMPUTE->LOAD: 1 token(s) are left at the end, never popped; the first was pushed by instruction 4 "
        "(COMPUTE engine, sync)");

  VdlaProgram q = program({Insn::sync(Engine::Load, kPushNext), Insn::sync(Engine::Load, kPushNext),
                           Insn::sync(Engine::Compute, kPopPrev), Insn::finish()});
  r = simulate(q, dram);
  REQUIRE(r.error.kind == SimError::Kind::Unbalanced);
  CHECK(r.error.insn_index == 1);
  CHECK(r.error.engine == Engine::Load);
  CHECK(r.error.queue == TokenQueue::LoadToCompute);
}

TEST_CASE("invalid streams, token overflow, out-of-range accesses and work after FINISH") {
  std::vector<uint8_t> dram(4096);
  auto error_of = [&](const VdlaProgram& p) {
    SimResult r = simulate(p, dram);
    return std::make_pair(r.error.kind, r.error.message);
  };
  CHECK(error_of(program({})).second == "the instruction stream is empty (it must end with FINISH)");
  CHECK(error_of(program({Insn::sync(Engine::Load, {})})).first == SimError::Kind::InvalidStream);
  auto e = error_of(program({Insn::load(mem(MemBuffer::Wgt, 0, 0, 1, 1, 1), kPopPrev), Insn::finish()}));
  CHECK(e.first == SimError::Kind::InvalidStream);
  CHECK(e.second.find("instruction 0 (LOAD engine, LOAD WGT) sets pop_prev, but the LOAD engine has no previous engine") == 0);
  e = error_of(program({Insn::store(mem(MemBuffer::Out, 0, 0, 1, 1, 1), kPushNext), Insn::finish()}));
  CHECK(e.second.find("sets push_next, but the STORE engine has no next engine") != std::string::npos);
  e = error_of(program({Insn::finish(), Insn::finish()}));
  CHECK(e.second == "instruction 0 (COMPUTE engine, FINISH) is not the last of the 2 instructions");
  e = error_of(program({Insn::finish(kPopPrev)}));
  CHECK(e.second.find("pops tokens; FINISH carries no pops") != std::string::npos);

  // Token queues of depth 1: the second push finds the queue full.
  VdlaProgram p = program({Insn::sync(Engine::Load, kPushNext), Insn::sync(Engine::Load, kPushNext),
                           Insn::sync(Engine::Compute, kPopPrev), Insn::sync(Engine::Compute, kPopPrev), Insn::finish()});
  CHECK(simulate(p, dram).ok());
  p.config.token_queue_depth = 1;
  SimResult r = simulate(p, dram);
  REQUIRE(r.error.kind == SimError::Kind::TokenOverflow);
  CHECK(r.error.insn_index == 1);
  CHECK(r.error.queue == TokenQueue::LoadToCompute);

  // Out of range: SRAM, DRAM, micro-op indices.
  e = error_of(program({Insn::load(mem(MemBuffer::Inp, 2047, 0, 1, 2, 2)), Insn::finish()}));
  CHECK(e.first == SimError::Kind::OutOfRange);
  CHECK(e.second == "instruction 0 (LOAD engine, LOAD INP) at cycle 0: it writes INP elements 2047..2049 past the end of INP (2048 elements)");
  e = error_of(program({Insn::load(mem(MemBuffer::Acc, 0, 60, 2, 4, 8)), Insn::finish()}));
  CHECK(e.second.find("DRAM bytes 3840..4608 lie outside the 4096-byte DRAM image") != std::string::npos);
  e = error_of(program({Insn::gemm_op(gemm(0, 9000)), Insn::finish()}));
  CHECK(e.second.find("uop_end 9000 is past the UOP buffer (8192 micro-ops)") != std::string::npos);
  GemmFields far = gemm(0, 1);
  far.loop.iter_out = 3;
  far.loop.acc_factor_out = 1000;
  e = error_of(program({Insn::gemm_op(far), Insn::finish()}));
  CHECK(e.first == SimError::Kind::None);  // rows 0, 1000, 2000 exist
  far.loop.acc_factor_out = 1100;
  e = error_of(program({Insn::gemm_op(far), Insn::finish()}));
  CHECK(e.second.find("micro-op 0 at iteration (2, 0) addresses ACC row 2200 (ACC has 2048 rows)") != std::string::npos);
  e = error_of(program({Insn::store(mem(MemBuffer::Acc, 0, 0, 1, 1, 1)), Insn::finish()}));
  CHECK(e.second.find("STORE reads the OUT buffer only, not ACC") != std::string::npos);

  // A load the FINISH does not wait for.
  e = error_of(program({Insn::load(mem(MemBuffer::Inp, 0, 0, 1, 1, 1)), Insn::finish()}));
  CHECK(e.first == SimError::Kind::WorkAfterFinish);
  CHECK(format_sim_report(simulate(program({Insn::load(mem(MemBuffer::Inp, 0, 0, 1, 1, 1)), Insn::finish()}), dram))
            .rfind("error: work after FINISH: instruction 0", 0) == 0);
  CHECK(e.second.find("instruction 0 (LOAD engine, LOAD INP) finishes at cycle 34, after FINISH completed at cycle 1") == 0);
}

TEST_CASE("padding is zero-filled on the SRAM side, over what was there before") {
  // DRAM: bytes 0..63 ones (to fill INP rows 0..3 first), 64..79 the data row, 1024.. output.
  // W = identity, so ACC row i = INP row i, and STORE writes INP rows 0..3 back out.
  VdlaProgram p;
  p.dram_bytes = 2048;
  p.uop_dram_offset = 512;
  for (uint64_t i = 0; i < 4; ++i) p.uops.push_back(Uop{i, i, 0});
  MemFields padded = mem(MemBuffer::Inp, 0, 4, 1, 1, 1);
  padded.y_pad_before = 1;  // rows: [pad pad] [data pad]
  padded.x_pad_after = 1;
  p.insns = {
      Insn::load(mem(MemBuffer::Uop, 0, 128, 1, 4, 4)),                 // 0 COMPUTE
      Insn::load(mem(MemBuffer::Inp, 0, 0, 1, 4, 4)),                   // 1 LOAD: rows 0..3 = 1
      Insn::load(padded),                                               // 2 LOAD: rows 0, 1, 3 = 0, row 2 = data
      Insn::load(mem(MemBuffer::Wgt, 0, 6, 1, 1, 1), kPushNext),        // 3 LOAD
      Insn::gemm_op(gemm(0, 4, true)),                                  // 4
      Insn::gemm_op(gemm(0, 4), kPopPrevPushNext),                      // 5
      Insn::store(mem(MemBuffer::Out, 0, 64, 1, 4, 4), kPopPrevPushPrev),  // 6 -> bytes 1024..1087
      Insn::sync(Engine::Compute, kPopNext),
      Insn::finish(),
  };
  std::vector<uint8_t> dram = make_dram_image(p);
  for (int i = 0; i < 64; ++i) dram[i] = 1;
  for (int k = 0; k < 16; ++k) dram[64 + k] = uint8_t(k - 5);
  for (int k = 0; k < 16; ++k) dram[1536 + k * 16 + k] = 1;  // WGT element 6 = bytes 1536..1791
  SimResult r = simulate(p, dram);
  REQUIRE_MESSAGE(r.ok(), r.error.message);
  for (int row = 0; row < 4; ++row)
    for (int k = 0; k < 16; ++k) {
      INFO("row ", row, " lane ", k);
      CHECK(int8_t(dram[1024 + row * 16 + k]) == (row == 2 ? k - 5 : 0));
    }
  // Padding moves no DRAM bytes and costs no DRAM cycles.
  CHECK(r.dram_bytes[int(MemBuffer::Inp)] == 64 + 16);

  // ACC8: int8 rows sign-extended into ACC, 2-D with a stride and padding on all sides.
  VdlaProgram q;
  q.dram_bytes = 4096;
  MemFields acc8 = mem(MemBuffer::Acc8, 0, 1, 2, 3, 5);
  acc8.y_pad_before = 1;
  acc8.y_pad_after = 1;
  acc8.x_pad_before = 2;
  acc8.x_pad_after = 1;  // 4 rows x 6 = 24 ACC rows
  q.insns = {Insn::load(acc8, kPushNext), Insn::store(mem(MemBuffer::Out, 0, 100, 1, 24, 24), kPopPrevPushPrev),
             Insn::sync(Engine::Compute, kPopNext), Insn::finish()};
  dram.assign(4096, 0);
  for (int i = 0; i < 16 * 20; ++i) dram[i] = uint8_t(i * 7 + 3);
  for (int i = 1600; i < 1600 + 24 * 16; ++i) dram[i] = 0xEE;
  r = simulate(q, dram);
  REQUIRE_MESSAGE(r.ok(), r.error.message);
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 6; ++col) {
      bool pad = row == 0 || row == 3 || col < 2 || col == 5;
      int src_elem = 1 + (row - 1) * 5 + (col - 2);
      for (int l = 0; l < 16; ++l) {
        INFO("row ", row, " col ", col, " lane ", l);
        CHECK(dram[1600 + (row * 6 + col) * 16 + l] == (pad ? 0 : uint8_t(src_elem * 16 * 7 + l * 7 + 3)));
      }
    }
}

TEST_CASE("ALU lanes: wrap-around, signed min/max, negative shift = left shift") {
  CHECK(alu_lane(AluOp::Add, INT32_MAX, 1) == INT32_MIN);
  CHECK(alu_lane(AluOp::Add, -5, 3) == -2);
  CHECK(alu_lane(AluOp::Min, -5, 3) == -5);
  CHECK(alu_lane(AluOp::Max, -5, 3) == 3);
  CHECK(alu_lane(AluOp::Shr, -17, 2) == -5);  // arithmetic: floor(-17 / 4)
  CHECK(alu_lane(AluOp::Shr, 100, 0) == 100);
  CHECK(alu_lane(AluOp::Shr, 3, -4) == 48);
  CHECK(alu_lane(AluOp::Shr, -3, -1) == -6);
  CHECK(alu_lane(AluOp::Shr, 0x40000000, -1) == INT32_MIN);  // wraps
  CHECK(alu_lane(AluOp::Shr, -7, 40) == -1);
  CHECK(alu_lane(AluOp::Shr, 7, 40) == 0);
  CHECK(alu_lane(AluOp::Shr, 7, -40) == 0);
  CHECK(alu_lane(AluOp::Mul, 65536, 65536) == 0);
  CHECK(alu_lane(AluOp::Mul, -3, 7) == -21);
}

TEST_CASE("ALU instructions on ACC rows: tensor and immediate operands, clip to int8, store") {
  // ACC rows 0 and 1 from DRAM (int32); row0 = ((row0 + row1) << 2) clipped to [-128, 127]; store.
  VdlaProgram p;
  p.dram_bytes = 4096;
  p.uop_dram_offset = 1024;
  p.uops = {Uop{0, 1, 0}};  // dst ACC 0, src ACC 1
  auto alu = [](AluOp op, bool imm, int64_t value) {
    AluFields a;
    a.loop.uop_begin = 0;
    a.loop.uop_end = 1;
    a.op = op;
    a.use_imm = imm;
    a.imm = value;
    return a;
  };
  p.insns = {
      Insn::load(mem(MemBuffer::Uop, 0, 256, 1, 1, 1)),
      Insn::load(mem(MemBuffer::Acc, 0, 0, 1, 2, 2)),  // ACC rows 0, 1 = DRAM bytes 0..127
      Insn::alu_op(alu(AluOp::Add, false, 0)),
      Insn::alu_op(alu(AluOp::Shr, true, -2)),
      Insn::alu_op(alu(AluOp::Max, true, -128)),
      Insn::alu_op(alu(AluOp::Min, true, 127), kPushNext),
      Insn::store(mem(MemBuffer::Out, 0, 200, 1, 1, 1), kPopPrevPushPrev),  // bytes 3200..3215
      Insn::sync(Engine::Compute, kPopNext),
      Insn::finish(),
  };
  p = parse_vdla(serialize_vdla(p), "alu.vdla");
  std::vector<uint8_t> dram = make_dram_image(p);
  const int32_t a[16] = {0, 1, -1, 31, 32, -32, -33, 100, -100, INT32_MAX, INT32_MIN, 7, -8, 20, -20, 5};
  const int32_t b[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, -1, 1, 1, 12, -13, -5};
  for (int l = 0; l < 16; ++l) {
    put_i32(dram, size_t(4 * l), a[l]);
    put_i32(dram, size_t(64 + 4 * l), b[l]);
  }
  SimResult r = simulate(p, dram);
  REQUIRE_MESSAGE(r.ok(), r.error.message);
  for (int l = 0; l < 16; ++l) {
    int64_t sum = int64_t(int32_t(uint32_t(a[l]) + uint32_t(b[l])));  // wraps: MAX + 1 = MIN
    int64_t shifted = int64_t(int32_t(uint32_t(sum) << 2));
    int64_t clipped = std::min<int64_t>(127, std::max<int64_t>(-128, shifted));
    INFO("lane ", l);
    CHECK(int8_t(dram[3200 + l]) == clipped);
  }
  CHECK(int8_t(dram[3200 + 9]) == 0);     // INT32_MAX + 1 wraps to INT32_MIN, << 2 wraps to 0
  CHECK(int8_t(dram[3200 + 10]) == -4);   // INT32_MIN - 1 wraps to INT32_MAX, << 2 to -4
  CHECK(int8_t(dram[3200 + 5]) == -128);  // -32 << 2
  CHECK(int8_t(dram[3200 + 3]) == 124);   // 31 << 2
  // COMPUTE: UOP 33, ACC 32 + 128/8 = 48, ADD 2 + 4, three immediates 1 + 4 each, sync 1, FINISH 1.
  CHECK(r.busy_cycles[int(Engine::Compute)] == 33 + 48 + 6 + 3 * 5 + 1 + 1);
}

TEST_CASE("GEMM loops: iter_out / iter_in factors address ACC, INP and WGT") {
  // 2 x 3 output rows, each the product of INP row (o*3 + i) with WGT tile o: one micro-op.
  VdlaProgram p;
  p.dram_bytes = 8192;
  p.uop_dram_offset = 4096;
  p.uops = {Uop{0, 0, 0}};
  GemmFields g = gemm(0, 1);
  g.loop.iter_out = 2;
  g.loop.iter_in = 3;
  g.loop.acc_factor_out = 3;
  g.loop.acc_factor_in = 1;
  g.inp_factor_out = 3;
  g.inp_factor_in = 1;
  g.wgt_factor_out = 1;
  GemmFields reset = g;
  reset.loop.reset = true;
  p.insns = {
      Insn::load(mem(MemBuffer::Uop, 0, 1024, 1, 1, 1)),
      Insn::load(mem(MemBuffer::Inp, 0, 0, 1, 6, 6)),               // bytes 0..95
      Insn::load(mem(MemBuffer::Wgt, 0, 1, 1, 2, 2), kPushNext),    // bytes 256..767
      Insn::gemm_op(reset),
      Insn::gemm_op(g, kPopPrevPushNext),
      Insn::store(mem(MemBuffer::Out, 0, 128, 1, 6, 6), kPopPrevPushPrev),  // bytes 2048..2143
      Insn::sync(Engine::Compute, kPopNext),
      Insn::finish(),
  };
  std::vector<uint8_t> dram = make_dram_image(p);
  for (int i = 0; i < 96; ++i) dram[i] = uint8_t((i * 13) % 23 - 11);
  for (int i = 0; i < 512; ++i) dram[256 + i] = uint8_t((i * 29) % 19 - 9);
  SimResult r = simulate(p, dram);
  REQUIRE_MESSAGE(r.ok(), r.error.message);
  for (int o = 0; o < 2; ++o)
    for (int i = 0; i < 3; ++i)
      for (int oc = 0; oc < 16; ++oc) {
        int32_t sum = 0;
        for (int k = 0; k < 16; ++k) sum += int32_t(int8_t(dram[(o * 3 + i) * 16 + k])) * int32_t(int8_t(dram[256 + o * 256 + oc * 16 + k]));
        CHECK(int8_t(dram[2048 + (o * 3 + i) * 16 + oc]) == int8_t(uint32_t(sum) & 0xFF));
      }
  CHECK(r.gemm_cycles == 6);
}

TEST_CASE("the trace is valid JSON with three engine tracks, instructions and token waits") {
  VdlaProgram p = one_tile_gemm_program();
  std::vector<uint8_t> dram = one_tile_dram(p);
  SimOptions opt;
  opt.record_timeline = true;
  SimResult r = simulate(p, dram, opt);
  REQUIRE(r.ok());
  std::string path = "vdla_sim_test_trace.json";
  REQUIRE(write_trace(path, p, r));
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path.c_str());
  uint32_t file = SourceManager::get().add(path, ss.str());
  vdla::JsonValue doc = parse_json(SourceManager::get().text(file), file);
  REQUIRE(doc.kind == vdla::JsonValue::Kind::Object);
  const vdla::JsonValue* events = nullptr;
  for (const auto& [k, v] : doc.members)
    if (k.name == "traceEvents") events = &v;
  REQUIRE(events);
  auto member = [](const vdla::JsonValue& obj, const char* name) -> const vdla::JsonValue* {
    for (const auto& [k, v] : obj.members)
      if (k.name == name) return &v;
    return nullptr;
  };
  std::set<std::string> track_names;
  std::map<int64_t, int> insn_events_per_track;
  std::vector<std::string> waits;
  int64_t gemm_start = -1;
  for (const vdla::JsonValue& e : events->elements) {
    std::string ph = member(e, "ph")->text, name = member(e, "name")->text;
    if (ph == "M" && name == "thread_name") track_names.insert(member(*member(e, "args"), "name")->text);
    if (ph != "X") continue;
    REQUIRE(member(e, "ts"));
    REQUIRE(member(e, "dur"));
    if (member(e, "cat")->text == "wait") waits.push_back(name + "@" + std::to_string(member(e, "tid")->integer));
    else ++insn_events_per_track[member(e, "tid")->integer];
    if (name == "GEMM") gemm_start = member(e, "ts")->integer;
  }
  CHECK(track_names == std::set<std::string>{"LOAD", "COMPUTE", "STORE"});
  CHECK(insn_events_per_track[0] == 2);  // LOAD INP, LOAD WGT
  CHECK(insn_events_per_track[1] == 5);
  CHECK(insn_events_per_track[2] == 1);
  CHECK(gemm_start == 131);
  // The GEMM waits for the weights' token, the STORE for the GEMM's, the final sync for the STORE's;
  // LOAD INP waits for the DRAM port.
  CHECK(std::find(waits.begin(), waits.end(), "wait LOAD->COMPUTE@1") != waits.end());
  CHECK(std::find(waits.begin(), waits.end(), "wait COMPUTE->STORE@2") != waits.end());
  CHECK(std::find(waits.begin(), waits.end(), "wait STORE->COMPUTE@1") != waits.end());
  CHECK(std::find(waits.begin(), waits.end(), "wait DRAM port@0") != waits.end());
  CHECK(ss.str().find("\"comment\": \"for k\"") != std::string::npos);
  CHECK_FALSE(write_trace("no/such/dir/t.json", p, r));
}

namespace {

// K iterations of "load an input row and a weight tile, then a GEMM of `uops_iters` micro-op
// iterations", tokens placed as the spec says (pair per engine change, loop-carried WAR token,
// priming and draining), with `threads` virtual threads (each its own INP row / WGT tile / ACC
// row; blocks interleaved), then one store per thread.
VdlaProgram pipelined_gemm(int threads, int K, uint64_t uop_iters) {
  VdlaProgram p;
  p.dram_bytes = 1 << 16;
  p.uop_dram_offset = 0;
  p.uops = {Uop{0, 0, 0}};
  std::vector<Insn>& s = p.insns;
  s.push_back(Insn::load(mem(MemBuffer::Uop, 0, 0, 1, 1, 1)));
  for (int t = 0; t < threads; ++t) s.push_back(Insn::sync(Engine::Compute, kPushPrev));  // prime COMPUTE->LOAD
  for (int k = 0; k < K; k += threads)
    for (int phase = 0; phase < 2; ++phase)
      for (int t = 0; t < threads; ++t) {
        if (phase == 0) {
          s.push_back(Insn::load(mem(MemBuffer::Inp, uint64_t(t), 64, 1, 1, 1), kPopNext));
          s.push_back(Insn::load(mem(MemBuffer::Wgt, uint64_t(t), 1, 1, 1, 1), kPushNext));
        } else {
          GemmFields g = gemm(0, 1);
          g.loop.iter_in = uop_iters;  // timing only: the addresses do not matter
          s.push_back(Insn::gemm_op(g, {true, false, true, false}));
        }
      }
  for (int t = 0; t < threads; ++t) s.push_back(Insn::sync(Engine::Load, {false, true, false, t + 1 == threads}));  // drain
  s.push_back(Insn::sync(Engine::Compute, {true, false, false, true}));
  s.push_back(Insn::store(mem(MemBuffer::Out, 0, 100, 1, 1, 1), kPopPrevPushPrev));
  s.push_back(Insn::sync(Engine::Compute, kPopNext));
  s.push_back(Insn::finish());
  return p;
}

}  // namespace

TEST_CASE("virtual threads: loads of one thread overlap the GEMMs of the other") {
  // Per iteration: LOAD INP 34 + LOAD WGT 64 = 98 DMA cycles; GEMM 98 + 4 cycles.
  SimOptions tokens_only;
  tokens_only.execute_datapath = false;
  std::vector<uint8_t> none;
  SimResult one = simulate(pipelined_gemm(1, 32, 98), none, tokens_only);
  SimResult two = simulate(pipelined_gemm(2, 32, 98), none, tokens_only);
  REQUIRE_MESSAGE(one.ok(), one.error.message);
  REQUIRE_MESSAGE(two.ok(), two.error.message);
  CHECK(one.gemm_cycles == 32 * 98);
  CHECK(two.gemm_cycles == 32 * 98);
  // One thread: load and compute alternate, 98 + 102 cycles per iteration.
  CHECK(one.total_cycles >= 32 * (98 + 102));
  CHECK(one.gemm_utilization < 0.5);
  // Two threads: thread 1 loads while thread 0 computes; the GEMMs run back to back after the
  // first loads (UOP 33 + INP 34 + WGT 64), then the final store and syncs.
  CHECK(two.total_cycles < 33 + 98 + 32 * 102 + 100);
  CHECK(two.gemm_utilization > 0.9);
  MESSAGE("one thread: ", one.total_cycles, " cycles, GEMM ", one.gemm_utilization, "; two: ", two.total_cycles, " cycles, GEMM ",
          two.gemm_utilization);
}

TEST_CASE("x_stride 0 repeats one DRAM row (overlapping rows are allowed)") {
  VdlaProgram p = program({Insn::load(mem(MemBuffer::Acc8, 0, 2, 3, 1, 0), kPushNext),
                           Insn::store(mem(MemBuffer::Out, 0, 10, 1, 3, 3), kPopPrevPushPrev), Insn::sync(Engine::Compute, kPopNext),
                           Insn::finish()});
  std::vector<uint8_t> dram(4096);
  for (int l = 0; l < 16; ++l) dram[32 + l] = uint8_t(l * 3 + 1);
  SimResult r = simulate(p, dram);
  REQUIRE_MESSAGE(r.ok(), r.error.message);
  for (int row = 0; row < 3; ++row)
    for (int l = 0; l < 16; ++l) CHECK(dram[160 + row * 16 + l] == uint8_t(l * 3 + 1));
  CHECK(r.dram_bytes[int(MemBuffer::Acc8)] == 48);
}

TEST_CASE("a missing token shows as a data hazard naming both instructions, the buffer and the row") {
  // The one-tile program, then a second load of INP row 0 while the GEMM still reads it: the
  // second LOAD waits for nothing, so it starts as soon as the LOAD engine is free.
  VdlaProgram p = one_tile_gemm_program();
  std::vector<uint8_t> dram = one_tile_dram(p);
  REQUIRE(simulate(p, dram).ok());
  // A GEMM long enough to still run when the load comes: 64 iterations of the one micro-op.
  p.insns[4].gemm.loop.iter_out = 64;
  p.insns.insert(p.insns.begin() + 5, Insn::load(mem(MemBuffer::Inp, 0, 4, 1, 1, 1)));  // 5: LOAD, no token
  p.comments.insert(p.comments.begin() + 5, "");
  // FINISH must still wait for the new load: it pushes to COMPUTE and the final sync pops it.
  p.insns[5].tokens = kPushNext;
  p.insns[7].tokens = Tokens{true, true, false, false};
  dram = one_tile_dram(p);
  SimResult r = simulate(p, dram);
  REQUIRE(r.error.kind == SimError::Kind::Hazard);
  CHECK(r.error.insn_index == 5);
  CHECK(r.error.engine == Engine::Load);
  CHECK(r.error.message.find("instruction 5 (LOAD engine, LOAD INP) overwrites INP row 0 while instruction 4 (COMPUTE engine, "
                             "GEMM) still reads it") != std::string::npos);
  CHECK(r.error.message.find("lacks a dependency token") != std::string::npos);

  // With the WAR token (the GEMM pushes to LOAD, the load pops it) there is no hazard.
  p.insns[4].tokens.push_prev = true;
  p.insns[5].tokens.pop_next = true;
  dram = one_tile_dram(p);
  SimResult fixed = simulate(p, dram);
  CHECK_MESSAGE(fixed.ok(), fixed.error.message);

  // Tokens only (no datapath): hazards are not checked, the stream is otherwise valid.
  p.insns[4].tokens.push_prev = false;
  p.insns[5].tokens.pop_next = false;
  SimOptions tokens_only;
  tokens_only.execute_datapath = false;
  std::vector<uint8_t> none;
  CHECK(simulate(p, none, tokens_only).ok());
}
