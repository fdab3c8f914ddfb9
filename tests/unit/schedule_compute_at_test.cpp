// compute_at and compute_root (lower/schedule/ComputeAt.cpp, ComputeRoot.cpp), with the loop
// primitives around them: every case is lowered for the interp target, run by the loop interpreter
// and compared with the reference interpreter; where the structure matters the loop AST is
// checked as text (the producer's buffer is the region one iteration needs, not the tensor).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "schedule_test_support.h"

using namespace texc;
using namespace texc::testing;

namespace {

// An elementwise producer P (named by the schedule, so not inlined) read twice by C.
std::string producer_consumer(const std::string& schedule, int rows = 30, int cols = 29) {
  return "op f(X: f32[" + std::to_string(rows) + ", " + std::to_string(cols) +
         "]) -> C {\n"
         "  compute {\n"
         "    P[i, j] = X[i, j] * 2.0 + 1.0\n"
         "    C[i, j] = P[i, j] * P[i, j] - X[i, j]\n"
         "  }\n"
         "  schedule cpu {\n" +
         schedule + "\n  }\n}\n";
}

}  // namespace

TEST_CASE("compute_at at a tile of non-dividing splits at every level") {
  std::string text = producer_consumer(
      "io, ii = split(C.i, 8)\n"   // 30 = 3*8 + 6
      "iio, iii = split(ii, 3)\n"  // 8 = 2*3 + 2
      "jo, ji = split(C.j, 7)\n"   // 29 = 4*7 + 1
      "reorder(io, jo, iio, iii, ji)\n"
      "compute_at(P, jo)\n");
  check_correct(text);
  // P is allocated inside jo with the 8 x 7 region one tile needs.
  std::string planned = ir_after(text, "plan_storage");
  // ii = iio*3 + iii spans 9 rows (the 9th is guarded off): the tile needs at most 9 x 7 of P.
  CHECK_CONTAINS(planned, "allocate P: f32[9, 7]");
  CHECK_NOT_CONTAINS(planned, "P: f32[30, 29]");
}

TEST_CASE("compute_at at the innermost split level") {
  std::string text = producer_consumer(
      "io, ii = split(C.i, 8)\n"
      "iio, iii = split(ii, 3)\n"
      "jo, ji = split(C.j, 7)\n"
      "reorder(io, jo, iio, iii, ji)\n"
      "compute_at(P, iii)\n");
  check_correct(text);
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate P: f32[1, 7]");
}

TEST_CASE("compute_at with a split factor larger than the extent") {
  std::string text = producer_consumer(
      "io, ii = split(C.i, 64)\n"
      "jo, ji = split(C.j, 100)\n"
      "reorder(io, jo, ii, ji)\n"
      "compute_at(P, jo)\n");
  check_correct(text);
}

TEST_CASE("compute_at after a later split of the target loop") {
  std::string text = producer_consumer(
      "io, ii = split(C.i, 4)\n"
      "ioo, ioi = split(io, 3)\n"  // io has 8 iterations: 3 does not divide
      "compute_at(P, ioi)\n");
  check_correct(text);
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate P: f32[4, 29]");
}

TEST_CASE("compute_at after a fuse of the target loop") {
  // The region goes through the fuse bindings f / 29 and f % 29.
  std::string text = producer_consumer(
      "f = fuse(C.i, C.j)\n"
      "fo, fi = split(f, 16)\n"
      "compute_at(P, fo)\n");
  check_correct(text);
  // 16 consecutive points of a 29-wide row span at most 2 rows.
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate P: f32[2, 29]");
}

TEST_CASE("compute_at of a flat producer at a tile of fused consumer loops") {
  // The consumer reads P[i*29 + j]; after fuse(i, j) that index is (f / 29)*29 + f % 29, which is
  // f: a tile of 16 fused points needs 16 elements of P, not the two rows' 58.
  std::string text =
      "op f(X: f32[30, 29]) -> C {\n"
      "  compute {\n"
      "    P[k: 870] = X[k / 29, k % 29] * 2.0 + 1.0\n"
      "    C[i, j] = P[i*29 + j] * P[i*29 + j] - X[i, j]\n"
      "  }\n"
      "  schedule cpu {\n"
      "    f = fuse(C.i, C.j)\n"
      "    fo, fi = split(f, 16)\n"
      "    compute_at(P, fo)\n"
      "  }\n"
      "}\n";
  check_correct(text);
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate P: f32[16]");
}

TEST_CASE("compute_at of a stencil producer at a tile, at the image border") {
  // B reads P at y-1..y+1 and x-1..x+1 (guarded by select): the tile's region sticks out of the
  // image at the border and must be clamped there (the loop interpreter checks every access).
  std::string text = R"(
op blur(X: f32[30, 27]) -> B {
  compute {
    P[y, x] = X[y, x] * 0.5 + 0.25
    B[y, x] = select(y >= 1 && y < 29 && x >= 1 && x < 26,
                     P[y - 1, x] + P[y + 1, x] + P[y, x - 1] + P[y, x + 1] + P[y, x], P[y, x])
  }
  schedule cpu {
    yo, xo, yi, xi = tile(B.y, B.x, 8, 8)
    compute_at(P, xo)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_CONTAINS(planned, "allocate P: f32[10, 10]");
}

TEST_CASE("compute_at of a reduction producer into a consumer tile") {
  std::string text = R"(
op rowsum(X: f32[20, 12]) -> C {
  compute {
    S[i, j] = sum(X[i, k] * X[k % 20, j] for k in 0..12)
    C[i, j] = S[i, j] + S[i, (j + 1) % 12]
  }
  schedule cpu {
    io, ii = split(C.i, 6)
    compute_at(S, io)
  }
}
)";
  check_correct(text);
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate S: f32[6, 12]");
}

TEST_CASE("compute_at then compute_root computes the whole producer again") {
  std::string text = producer_consumer(
      "io, ii = split(C.i, 8)\n"
      "compute_at(P, io)\n"
      "compute_root(P)\n");
  check_correct(text);
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate P: f32[30, 29]");
}

TEST_CASE("a chain of producers computed at the consumer's tile") {
  std::string text = R"(
op chain(X: f32[17, 19]) -> C {
  compute {
    P[i, j] = X[i, j] + 1.0
    Q[i, j] = P[i, j] * P[i, (j + 18) % 19]
    C[i, j] = Q[i, j] - P[i, j]
  }
  schedule cpu {
    io, ii = split(C.i, 4)
    jo, ji = split(C.j, 5)
    reorder(io, jo, ii, ji)
    compute_at(Q, jo)
    compute_at(P, jo)
  }
}
)";
  check_correct(text);
}

TEST_CASE("vectorize with a tail, with a producer computed inside") {
  std::string text = producer_consumer(
      "io, ii = split(C.i, 4)\n"
      "jo, ji = split(C.j, 8)\n"  // 29 = 3*8 + 5
      "reorder(io, jo, ii, ji)\n"
      "vectorize(ji)\n"
      "compute_at(P, io)\n");
  check_correct(text);
}

TEST_CASE("unroll after a split") {
  std::string text = R"(
op mm(A: f32[13, 10], B: f32[10, 11]) -> C {
  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..10) }
  schedule cpu {
    ko, ki = split(C.k, 4)
    jo, ji = split(C.j, 4)
    reorder(C.i, jo, ko, ki, ji)
    unroll(ki)
  }
}
)";
  check_correct(text);
}

TEST_CASE("a reduction loop reordered outside spatial loops") {
  std::string text = R"(
op mm(A: f32[13, 10], B: f32[10, 11]) -> C {
  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..10) }
  schedule cpu {
    io, ii = split(C.i, 4)
    reorder(io, C.k, ii, C.j)
  }
}
)";
  check_correct(text);
}

TEST_CASE("fuse, then split, then parallel") {
  std::string text = producer_consumer(
      "f = fuse(C.i, C.j)\n"
      "fo, fi = split(f, 16)\n"
      "parallel(fo)\n"
      "compute_at(P, fo)\n");
  check_correct(text);
}

TEST_CASE("compute_at diagnostics") {
  SUBCASE("a loop that does not enclose the consumer") {
    std::string text = R"(
op f(X: f32[8, 8]) -> C, D {
  compute {
    P[i, j] = X[i, j] * 2.0
    C[i, j] = P[i, j] + 1.0
    D[i, j] = P[i, j] - 1.0
  }
  schedule cpu {
    compute_at(P, C.i)
  }
}
)";
    Diagnostic d = schedule_error(text);
    CHECK(d.id == DiagId::ComputeAtNotEnclosing);
    CHECK(d.message == "cannot compute_at 'P' at loop 'C.i': its consumer 'D' reads it outside that loop");
    CHECK(d.loc.line == 9);
    CHECK(d.loc.col == 19);
  }
  SUBCASE("a consumer that is itself an intermediate stage: the hint names it") {
    std::string text = R"(
op f(X: f32[8, 8]) -> C {
  compute {
    P[i, j] = X[i, j] * 2.0
    Q[i, j: 8] = sum(P[i, k] * f32(j) for k in 0..8)
    C[i, j] = Q[i, j] + 1.0
  }
  schedule cpu {
    compute_at(P, C.i)
  }
}
)";
    Diagnostic d = schedule_error(text);
    CHECK(d.id == DiagId::ComputeAtNotEnclosing);
    CHECK(d.message == "cannot compute_at 'P' at loop 'C.i': its consumer 'Q' reads it outside that loop "
                       "(compute_at(Q, C.i) first puts it there too)");
  }
  SUBCASE("a stage nobody reads") {
    std::string text = producer_consumer("compute_at(C, C.i)\n");
    CHECK(schedule_error(text).id == DiagId::MoveOutputStage);
    std::string dead = R"(
op f(X: f32[8]) -> C {
  compute {
    P[i] = X[i] * 2.0
    C[i] = X[i] + 1.0
  }
  schedule cpu { compute_at(P, C.i) }
}
)";
    Diagnostic d = schedule_error(dead);
    CHECK(d.id == DiagId::ComputeAtNoConsumer);
    CHECK(d.message == "cannot compute_at 'P': no stage reads it");
  }
  SUBCASE("its own loop") {
    Diagnostic d = schedule_error(producer_consumer("compute_at(P, P.j)\n"));
    CHECK(d.id == DiagId::ComputeAtOwnLoop);
    CHECK(d.message == "cannot compute_at 'P' at its own loop 'P.j'");
  }
  SUBCASE("after other primitives on the producer") {
    Diagnostic d = schedule_error(producer_consumer("po, pi = split(P.i, 4)\ncompute_at(P, C.i)\n"));
    CHECK(d.id == DiagId::StageAlreadyScheduled);
    CHECK(d.message ==
          "cannot compute_at 'P': its loops were already transformed (loop 'po'); apply compute_at before other "
          "primitives on 'P'");
  }
  SUBCASE("compute_root of a stage whose producer sits inside a consumer loop") {
    std::string text = R"(
op f(X: f32[8, 8]) -> C {
  compute {
    P[i, j] = X[i, j] * 2.0
    Q[i, j] = P[i, j] + 1.0
    C[i, j] = Q[i, j] * 3.0
  }
  schedule cpu {
    compute_at(Q, C.i)
    compute_at(P, C.i)
    compute_root(Q)
  }
}
)";
    Diagnostic d = schedule_error(text);
    CHECK(d.id == DiagId::ScheduleBreaksDataflow);
    CHECK(d.message == "cannot compute_root 'Q' there: it reads 'P', which would be computed after it");
  }
}

// A hidden reduction stage (O_red of `O[..] = sum(..) / Z[..]`) follows its scheduled consumer
// (lower/AttachHiddenReductions.h), and schedules can name it.
namespace {
std::string hidden_reduction(const std::string& schedule) {
  return "op f(S: f32[19, 32], V: f32[32, 8], Z: f32[19]) -> O {\n"
         "  compute { O[i, e] = sum(S[i, j] * V[j, e] for j in 0..32) / Z[i] }\n"
         "  schedule cpu {\n" +
         schedule + "\n  }\n}\n";
}
}  // namespace

TEST_CASE("an unnamed hidden reduction stage is computed at its consumer's outermost loop") {
  std::string text = hidden_reduction("io, ii = split(O.i, 4)\nparallel(io)\n");
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  // Inside the parallel loop, 4 rows per iteration, not the whole tensor before it.
  CHECK_CONTAINS(planned, "parallel io in 0..5 {\n    allocate O_red: f32[4, 8]");
  CHECK_NOT_CONTAINS(planned, "O_red: f32[19, 8]");
  // --no-fuse keeps the default (computed once at the top level).
  CHECK_CONTAINS(ir_after(text, "plan_storage", true), "allocate O_red: f32[19, 8]");
}

TEST_CASE("a hidden reduction stage can be named, directly or through its consumer's reduction loop") {
  std::string named = hidden_reduction("io, ii = split(O.i, 4)\ncompute_at(O_red, ii)\n");
  check_correct(named);
  CHECK_CONTAINS(ir_after(named, "plan_storage"), "allocate O_red: f32[1, 8]");
  // Splitting O.j (O_red's loop) names O_red: it stays at the top level with its split loops.
  std::string by_loop = hidden_reduction("io, ii = split(O.i, 4)\njo, ji = split(O.j, 8)\n");
  check_correct(by_loop);
  CHECK_CONTAINS(ir_after(by_loop, "plan_storage"), "allocate O_red: f32[19, 8]");
}
