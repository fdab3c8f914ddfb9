// Token placement (backends/vdla/Tokens.h) as text: each case is a stream written one instruction
// per line — its virtual thread, its kind and what it touches on chip — and the expected stream
// after place_tokens, one line per instruction with its engine and tokens (syncs and FINISH
// appended). Then the footprints that the placement relies on, computed from real instructions.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <sstream>

#include "backends/vdla/Footprint.h"
#include "backends/vdla/Simulator.h"
#include "backends/vdla/Tokens.h"
#include "vdla_test_programs.h"

using namespace texc;
using namespace texc::vdla;
using namespace texc::vdla::test;

namespace {

// "t0 LOAD w:INP[0,10)" / "t1 GEMM r:INP[0,10) r:WGT[0,2) w:ACC[0,8)" / "t0 RESET w:ACC[0,8)" /
// "t0 ALU w:ACC[0,4)" / "t0 STORE r:ACC[0,4)": the instruction kind decides the engine (LOAD of
// INP/WGT: LOAD; GEMM, RESET, ALU: COMPUTE; STORE: STORE), the ranges its footprint.
std::vector<ThreadedInsn> parse_stream(const std::string& text) {
  std::vector<ThreadedInsn> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string thread, kind, range;
    if (!(words >> thread >> kind)) continue;
    ThreadedInsn ti;
    ti.thread = std::stoi(thread.substr(1));
    ti.comment = kind;
    Footprint f;
    MemBuffer loaded = MemBuffer::Inp;
    while (words >> range) {  // r:INP[0,10)
      bool write = range[0] == 'w';
      std::string buf = range.substr(2, 3);
      size_t open = range.find('['), comma = range.find(','), close = range.find(')');
      RowRange rows{std::stoull(range.substr(open + 1, comma - open - 1)), std::stoull(range.substr(comma + 1, close - comma - 1))};
      SramBuffer b = buf == "INP" ? SramBuffer::Inp : buf == "WGT" ? SramBuffer::Wgt : SramBuffer::Acc;
      if (buf == "WGT") loaded = MemBuffer::Wgt;
      (write ? f.writes : f.reads)[size_t(b)].push_back(rows);
      ti.comment += " " + range;
    }
    if (kind == "LOAD") ti.insn = Insn::load(mem(loaded, 0, 0, 1, 1, 1));
    else if (kind == "GEMM") ti.insn = Insn::gemm_op(gemm(0, 1));
    else if (kind == "RESET") ti.insn = Insn::gemm_op(gemm(0, 1, true));
    else if (kind == "ALU") ti.insn = Insn::alu_op(AluFields{});
    else if (kind == "STORE") ti.insn = Insn::store(mem(MemBuffer::Out, 0, 0, 1, 1, 1));
    else FAIL("unknown kind " << kind);
    ti.footprint = f;
    out.push_back(ti);
  }
  return out;
}

std::string tokens_text(const Tokens& t) {
  std::string s;
  if (t.pop_prev) s += " pop_prev";
  if (t.pop_next) s += " pop_next";
  if (t.push_prev) s += " push_prev";
  if (t.push_next) s += " push_next";
  return s.empty() ? " -" : s;
}

// The placed stream: "t0 LOAD    w:INP[0,10) | push_next".
std::string placed(const std::string& text) {
  std::vector<ThreadedInsn> stream = parse_stream(text);
  place_tokens(stream);
  std::string out;
  for (const ThreadedInsn& ti : stream) {
    std::string what = ti.insn.opcode == Opcode::Finish ? "FINISH" : ti.insn.is_sync() ? "sync" : ti.comment;
    out += (ti.thread < 0 ? std::string("--") : "t" + std::to_string(ti.thread)) + " " + what + " |" + tokens_text(ti.insn.tokens) + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("RAW and WAR pairs at the changes of engine, and the final sync") {
  CHECK(placed(R"(
    t0 LOAD w:INP[0,10)
    t0 LOAD w:WGT[0,2)
    t0 RESET w:ACC[0,8)
    t0 GEMM r:INP[0,10) r:WGT[0,2) w:ACC[0,8)
    t0 LOAD w:INP[0,10)
    t0 GEMM r:INP[0,10) r:WGT[0,2) w:ACC[0,8)
    t0 ALU w:ACC[0,8)
    t0 STORE r:ACC[0,8)
    t0 RESET w:ACC[0,8)
  )") == "t0 LOAD w:INP[0,10) | -\n"
         "t0 LOAD w:WGT[0,2) | push_next\n"              // the GEMM reads both: it waits for the later
         "t0 RESET w:ACC[0,8) | -\n"                     // touches no loaded buffer
         "t0 GEMM r:INP[0,10) r:WGT[0,2) w:ACC[0,8) | pop_prev push_prev\n"  // RAW; the reload waits for it (WAR)
         "t0 LOAD w:INP[0,10) | pop_next push_next\n"
         "t0 GEMM r:INP[0,10) r:WGT[0,2) w:ACC[0,8) | pop_prev\n"
         "t0 ALU w:ACC[0,8) | push_next\n"               // RAW for the store
         "t0 STORE r:ACC[0,8) | pop_prev push_prev\n"    // WAR for the reset
         "t0 RESET w:ACC[0,8) | pop_next\n"
         "-- FINISH | -\n");                             // nothing is left in flight unseen: no sync
}

TEST_CASE("a load into rows no compute still reads does not wait (double buffering)") {
  CHECK(placed(R"(
    t0 LOAD w:INP[0,10)
    t0 GEMM r:INP[0,10) w:ACC[0,8)
    t0 LOAD w:INP[10,20)
    t0 GEMM r:INP[10,20) w:ACC[0,8)
    t0 LOAD w:INP[0,10)
    t0 GEMM r:INP[0,10) w:ACC[0,8)
  )") == "t0 LOAD w:INP[0,10) | push_next\n"
         "t0 GEMM r:INP[0,10) w:ACC[0,8) | pop_prev push_prev\n"
         "t0 LOAD w:INP[10,20) | push_next\n"            // the other half: no WAR wait
         "t0 GEMM r:INP[10,20) w:ACC[0,8) | pop_prev\n"
         "t0 LOAD w:INP[0,10) | pop_next push_next\n"    // waits for the first GEMM only
         "t0 GEMM r:INP[0,10) w:ACC[0,8) | pop_prev\n"
         "-- FINISH | -\n");
}

TEST_CASE("an epilogue in chunks: ALU work of one chunk does not wait for the store of another") {
  CHECK(placed(R"(
    t0 ALU w:ACC[0,4)
    t0 STORE r:ACC[0,4)
    t0 ALU w:ACC[4,8)
    t0 STORE r:ACC[4,8)
    t0 RESET w:ACC[0,8)
  )") == "t0 ALU w:ACC[0,4) | push_next\n"
         "t0 STORE r:ACC[0,4) | pop_prev\n"
         "t0 ALU w:ACC[4,8) | push_next\n"               // no pop_next: the store reads other rows
         "t0 STORE r:ACC[4,8) | pop_prev push_prev\n"
         "t0 RESET w:ACC[0,8) | pop_next\n"              // the later store covers the earlier one
         "-- FINISH | -\n");
}

TEST_CASE("virtual threads do not wait for each other; what is left at the end is synced once") {
  CHECK(placed(R"(
    t0 LOAD w:INP[0,10)
    t1 LOAD w:INP[10,20)
    t0 GEMM r:INP[0,10) w:ACC[0,8)
    t1 GEMM r:INP[10,20) w:ACC[8,16)
    t0 LOAD w:INP[0,10)
    t1 LOAD w:INP[10,20)
    t0 STORE r:ACC[0,8)
    t1 STORE r:ACC[8,16)
  )") == "t0 LOAD w:INP[0,10) | push_next\n"
         "t1 LOAD w:INP[10,20) | push_next\n"
         "t0 GEMM r:INP[0,10) w:ACC[0,8) | pop_prev push_prev push_next\n"
         "t1 GEMM r:INP[10,20) w:ACC[8,16) | pop_prev push_prev push_next\n"
         "t0 LOAD w:INP[0,10) | pop_next\n"              // the sync waits for the later load
         "t1 LOAD w:INP[10,20) | pop_next push_next\n"
         "t0 STORE r:ACC[0,8) | pop_prev\n"
         "t1 STORE r:ACC[8,16) | pop_prev push_prev\n"
         "t0 sync | pop_prev pop_next\n"                 // FINISH after every load and store
         "-- FINISH | -\n");
}

TEST_CASE("a thread idle in the last tile leaves no push that another thread's pop would take") {
  // The queues are first in, first out and shared by the threads: planned per thread, t1's store
  // pushed for t1's end sync, and t0's third GEMM (which must wait for t0's second store) took
  // that token instead, overwriting rows the store still read.
  CHECK(placed(R"(
    t0 GEMM w:ACC[0,8)
    t1 GEMM w:ACC[8,16)
    t0 STORE r:ACC[0,8)
    t1 STORE r:ACC[8,16)
    t0 GEMM w:ACC[0,8)
    t0 STORE r:ACC[0,8)
    t0 GEMM w:ACC[0,8)
    t0 STORE r:ACC[0,8)
  )") == "t0 GEMM w:ACC[0,8) | push_next\n"
         "t1 GEMM w:ACC[8,16) | push_next\n"
         "t0 STORE r:ACC[0,8) | pop_prev push_prev\n"
         "t1 STORE r:ACC[8,16) | pop_prev\n"
         "t0 GEMM w:ACC[0,8) | pop_next push_next\n"
         "t0 STORE r:ACC[0,8) | pop_prev push_prev\n"
         "t0 GEMM w:ACC[0,8) | pop_next push_next\n"
         "t0 STORE r:ACC[0,8) | pop_prev push_prev\n"
         "t0 sync | pop_next\n"
         "-- FINISH | -\n");
}

TEST_CASE("footprints of real instructions: loads with padding, GEMM loops, ALU with a source, stores") {
  std::vector<Uop> uops = {Uop{0, 0, 0}, Uop{1, 2, 0}, Uop{5, 0, 0}};
  auto uop_at = [&](uint64_t u) { return u < uops.size() ? uops[u] : Uop{}; };
  MemFields padded = mem(MemBuffer::Inp, 100, 0, 2, 3, 3);
  padded.y_pad_before = 1;
  padded.x_pad_after = 1;
  Footprint f = footprint(Insn::load(padded), uop_at);
  CHECK(f.writes[size_t(SramBuffer::Inp)] == RowSet{{100, 112}});  // 3 rows of 4 elements
  CHECK(f.reads[size_t(SramBuffer::Inp)].empty());

  GemmFields g = gemm(0, 2);
  g.loop.iter_out = 2;
  g.loop.acc_factor_out = 10;
  g.inp_factor_out = 3;
  g.wgt_factor_in = 1;
  f = footprint(Insn::gemm_op(g), uop_at);
  CHECK(f.writes[size_t(SramBuffer::Acc)] == RowSet{{0, 2}, {10, 12}});
  CHECK(f.reads[size_t(SramBuffer::Acc)] == RowSet{{0, 2}, {10, 12}});  // it accumulates
  CHECK(f.reads[size_t(SramBuffer::Inp)] == RowSet{{0, 1}, {2, 4}, {5, 6}});
  CHECK(f.reads[size_t(SramBuffer::Wgt)] == RowSet{{0, 1}});
  CHECK(f.reads[size_t(SramBuffer::Uop)] == RowSet{{0, 2}});

  AluFields a;
  a.loop.uop_begin = 2;
  a.loop.uop_end = 3;  // dst ACC 5, src ACC 0
  f = footprint(Insn::alu_op(a), uop_at);
  CHECK(f.writes[size_t(SramBuffer::Acc)] == RowSet{{5, 6}});
  CHECK(f.reads[size_t(SramBuffer::Acc)] == RowSet{{0, 1}, {5, 6}});
  a.use_imm = true;
  CHECK(footprint(Insn::alu_op(a), uop_at).reads[size_t(SramBuffer::Acc)] == RowSet{{5, 6}});

  f = footprint(Insn::store(mem(MemBuffer::Out, 7, 0, 2, 4, 4)), uop_at);
  CHECK(f.reads[size_t(SramBuffer::Acc)] == RowSet{{7, 15}});
  CHECK(footprint(Insn::sync(Engine::Load, {}), uop_at).empty());
  CHECK(footprint(Insn::finish(), uop_at).empty());

  Footprint store_a = footprint(Insn::store(mem(MemBuffer::Out, 0, 0, 1, 4, 4)), uop_at);
  Footprint alu_b = footprint(Insn::alu_op(a), uop_at);  // writes ACC 5
  CHECK_FALSE(conflicts(store_a, alu_b));
  CHECK(conflicts(footprint(Insn::store(mem(MemBuffer::Out, 4, 0, 1, 4, 4)), uop_at), alu_b));
}
