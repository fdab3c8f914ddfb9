// inline, cache_read and cache_write (lower/schedule/Inline.cpp, CacheRead.cpp, CacheWrite.cpp):
// lowered for the interp target, run by the loop interpreter and compared with the reference
// interpreter, with textual checks of the loop AST where the structure matters.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "schedule_test_support.h"

#include "lower/schedule/Primitives.h"

using namespace texc;
using namespace texc::testing;

TEST_CASE("inline of a stage read by two consumers") {
  std::string text = R"(
op two(X: f32[9, 7]) -> A, B {
  compute {
    P[i, j] = X[i, j] * 3.0 - 1.0
    A[i, j] = P[i, j] + P[8 - i, j]
    B[i, j: 7] = P[i, (j + 1) % 7] * 2.0
  }
  schedule cpu { inline(P) }
}
)";
  LoweredFunc f = check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_NOT_CONTAINS(planned, "allocate P");
  CHECK_NOT_CONTAINS(planned, "P[");
}

TEST_CASE("inline chains: a stage inlined into a stage that is inlined in turn") {
  std::string text = R"(
op chain(X: f32[16]) -> C {
  compute {
    P[i] = X[i] + 1.0
    Q[i] = P[i] * P[15 - i]
    C[i] = Q[i] - Q[(i + 3) % 16]
  }
  schedule cpu {
    inline(P)
    inline(Q)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_NOT_CONTAINS(planned, "allocate P");
  CHECK_NOT_CONTAINS(planned, "allocate Q");
}

TEST_CASE("inline diagnostics") {
  std::string reduction = R"(
op f(X: f32[8, 8]) -> C {
  compute {
    S[i] = sum(X[i, k] for k in 0..8)
    C[i] = S[i] * 2.0
  }
  schedule cpu { inline(S) }
}
)";
  Diagnostic d = schedule_error(reduction);
  CHECK(d.id == DiagId::InlineReduction);
  CHECK(d.message == "cannot inline 'S': it is a reduction (only elementwise stages can be inlined)");
  CHECK(d.loc.line == 7);
  CHECK(d.loc.col == 25);
  std::string output = R"(
op f(X: f32[8]) -> C {
  compute { C[i] = X[i] * 2.0 }
  schedule cpu { inline(C) }
}
)";
  CHECK(schedule_error(output).message == "cannot inline 'C': it is an output of the op and must be computed in full");
}

TEST_CASE("try_inline: inline where it can be applied, else why not, without throwing or changing the state") {
  // Big's value is 701 loads of 3 nodes and 700 additions, 2803 nodes; C's value has 8, and each
  // of its 2 reads of Big becomes Big's value: 8 + 2*(2803 - 1) = 5612 > kMaxInlinedNodes.
  std::string big = "X[i, 0]";
  for (int k = 0; k < 700; ++k) big += " + X[i, 0]";
  std::string text = R"(
op f(X: f32[8, 8]) -> C {
  compute {
    R[i] = sum(X[i, k] for k in 0..8)
    P[i] = R[i] * 2.0
    Big[i] = )" + big + R"(
    C[i] = P[i] + Big[i] + Big[i]
  }
}
)";
  ScheduleState st = ScheduleState::create(compile_op(text), "interp");
  const Stmt body = st.func.body;
  const Expr c_def = st.stages.at("C").body;
  SourceLoc loc = st.stages.at("P").loc;
  Diagnostic why;
  CHECK(!try_inline(st, "R", loc, &why));
  CHECK(why.id == DiagId::InlineReduction);
  CHECK(!try_inline(st, "C", loc, &why));
  CHECK(why.id == DiagId::MoveOutputStage);
  CHECK(!try_inline(st, "Big", loc, &why));
  CHECK(why.id == DiagId::InlineTooLarge);
  CHECK(why.message == "cannot inline 'Big': the value of its reader 'C' would grow to 5612 expression nodes (the "
                       "limit is 4096); keep it stored or compute_at it");
  CHECK(why.loc.line == loc.line);
  CHECK(!try_inline(st, "nowhere", loc, &why));
  CHECK(why.id == DiagId::UnknownStage);
  CHECK(!try_inline(st, "Big", loc));  // no reason asked for
  // Nothing was rewritten by the refusals.
  CHECK(st.func.body == body);
  CHECK(st.inlined.empty());
  CHECK(st.find_loop("Big.i"));
  CHECK(st.stages.at("C").body == c_def);
  // P can be inlined: it is.
  CHECK(try_inline(st, "P", loc, &why));
  CHECK(st.inlined.count("P"));
  CHECK(!st.find_loop("P.i"));
  CHECK(st.stages.at("C").body != c_def);
  CHECK(!try_inline(st, "P", loc, &why));  // once
  CHECK(why.id == DiagId::UnknownStage);
  // Automatic inlining does the same: P is inlined, Big stays stored.
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_NOT_CONTAINS(planned, "allocate P");
  CHECK_CONTAINS(planned, "allocate Big");
}

TEST_CASE("cache_write + compute_at: the register-blocked matmul") {
  std::string text = R"(
op matmul(A: f32[32, 24], B: f32[24, 40]) -> C {
  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..24) }
  schedule cpu {
    CL = cache_write(C, local)
    io, ii = split(C.i, 8)
    jo, ji = split(C.j, 8)
    reorder(io, jo, ii, ji)
    compute_at(CL, jo)
    reorder(CL.k, CL.i, CL.j)
    vectorize(CL.j)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  // The tile is an 8x8 local buffer inside jo; the init is hoisted before CL.k.
  CHECK_CONTAINS(planned, "allocate CL: f32[8, 8] local");
  size_t init_loop = planned.find("vectorized CL.j");
  size_t k_loop = planned.find("for CL.k");
  REQUIRE(init_loop != std::string::npos);
  REQUIRE(k_loop != std::string::npos);
  CHECK(init_loop < k_loop);
}

TEST_CASE("cache_write with a tail tile") {
  std::string text = R"(
op matmul(A: f32[30, 20], B: f32[20, 27]) -> C {
  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..20) }
  schedule cpu {
    CL = cache_write(C, local)
    io, ii = split(C.i, 8)
    jo, ji = split(C.j, 8)
    reorder(io, jo, ii, ji)
    compute_at(CL, jo)
    ko, ki = split(CL.k, 6)
    reorder(ko, CL.i, ki, CL.j)
  }
}
)";
  check_correct(text);
}

TEST_CASE("cache_write diagnostics") {
  std::string after_split = R"(
op mm(A: f32[8, 8], B: f32[8, 8]) -> C {
  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..8) }
  schedule cpu {
    io, ii = split(C.i, 4)
    CL = cache_write(C, local)
  }
}
)";
  Diagnostic d = schedule_error(after_split);
  CHECK(d.id == DiagId::StageAlreadyScheduled);
  CHECK(d.message ==
        "cannot cache_write 'C': its loops were already transformed (loop 'io'); apply cache_write before other "
        "primitives on 'C'");
  std::string bad_scope = R"(
op mm(A: f32[8, 8], B: f32[8, 8]) -> C {
  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..8) }
  schedule cpu { CL = cache_write(C, registers) }
}
)";
  d = schedule_error(bad_scope);
  CHECK(d.id == DiagId::BadScope);
  CHECK(d.loc.col == 38);
}

TEST_CASE("cache_read of an input for one consumer, computed at its reduction loop") {
  std::string text = R"(
op matmul(A: f32[19, 16], B: f32[16, 21]) -> C, D {
  compute {
    C[i, j] = sum(A[i, k] * B[k, j] for k in 0..16)
    D[i, k] = A[i, k] * 2.0
  }
  schedule cpu {
    AL = cache_read(A, local, C)
    io, ii = split(C.i, 4)
    ko, ki = split(C.k, 4)
    reorder(io, ko, C.j, ii, ki)
    compute_at(AL, ko)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  // AL holds the 4x4 block of A for one (io, ko); D still reads A itself.
  CHECK_CONTAINS(planned, "allocate AL: f32[4, 4] local");
  CHECK_CONTAINS(planned, "for AL.i");
  CHECK_CONTAINS(planned, "for AL.k");
  CHECK_CONTAINS(planned, "D[D.i, D.k] = A[D.i, D.k]");
}

TEST_CASE("cache_read of an intermediate stage keeps its axis names") {
  std::string text = R"(
op f(X: f32[12, 10]) -> C {
  compute {
    P[r, c] = X[r, c] + 2.0
    C[i, j] = P[i, j] * P[11 - i, j]
  }
  schedule cpu {
    PS = cache_read(P, global, C)
    io, ii = split(C.i, 5)
    compute_at(PS, io)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_CONTAINS(planned, "for PS.r");
  CHECK_CONTAINS(planned, "for PS.c");
}

TEST_CASE("cache_read diagnostics") {
  std::string text = R"(
op f(X: f32[8], Y: f32[8]) -> C, D {
  compute {
    C[i] = X[i] * 2.0
    D[i] = Y[i] + 1.0
  }
  schedule cpu { XL = cache_read(X, local, D) }
}
)";
  Diagnostic d = schedule_error(text);
  CHECK(d.id == DiagId::CacheReadNotReader);
  CHECK(d.message == "cannot cache_read 'X' for 'D': 'D' does not read 'X'");
  CHECK(d.loc.col == 44);
}
