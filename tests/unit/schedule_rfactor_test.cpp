// rfactor (lower/schedule/Rfactor.cpp): the loop AST it leaves, as text, and every case lowered for
// the interp target, run by the loop interpreter and compared with the reference interpreter.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "schedule_test_support.h"

using namespace texc;
using namespace texc::testing;

namespace {

// The function text of an `ir_after` log (without its "// ---- after" line).
// The printed function, ending with one newline.
std::string function_text(std::string ir) {
  while (!ir.empty() && ir.back() == '\n') ir.pop_back();
  return ir + "\n";
}

}  // namespace

TEST_CASE("rfactor over the inner loop of a non-dividing split: the loops it leaves") {
  std::string text = R"(
op rsum(A: f32[9, 37]) -> S {
  compute { S[i] = sum(A[i, k] * A[i, k] for k in 0..37) }
  schedule cpu {
    ko, ki = split(S.k, 8)
    SF = rfactor(S, ki)
  }
}
)";
  check_correct(text);
  // SF: S's axis i, then ki, reducing over ko with the split's guard in its body (the init runs
  // for every (i, ki)); S reduces SF over a loop that keeps the name ki.
  CHECK(function_text(ir_after(text, "apply_schedule")) == R"(func rsum(A: f32[9, 37] input, S: f32[9] output) {
  for SF.i in 0..9 {
    for SF.ki in 0..8 {
      for SF.ko in 0..5 {
        block SF(i: 0..9 = SF.i, ki: 0..8 = SF.ki, ko: reduce 0..5 = SF.ko) {
          init {
            SF[i, ki] = 0.0f
          }
          if (ko*8 + ki < 37) {
            SF[i, ki] = SF[i, ki] + A[i, ko*8 + ki]*A[i, ko*8 + ki]
          }
        }
      }
    }
  }
  for S.i in 0..9 {
    for ki in 0..8 {
      block S(i: 0..9 = S.i, ki.1: reduce 0..8 = ki) {
        init {
          S[i] = 0.0f
        }
        S[i] = S[i] + SF[i, ki.1]
      }
    }
  }
}
)");
}

TEST_CASE("rfactor + reorder + vectorize: SF's lanes become one vector accumulator per row") {
  std::string text = R"(
op rsum(A: f32[9, 37]) -> S {
  compute { S[i] = sum(A[i, k] * A[i, k] for k in 0..37) }
  schedule cpu {
    ko, ki = split(S.k, 8)
    SF = rfactor(S, ki)
    reorder(SF.ko, SF.ki)
    vectorize(SF.ki)
  }
}
)";
  LoweredFunc f = check_correct(text);
  std::string loops = to_string(f);
  // The init, the guard-free steady part and the 5-lane tail (37 = 4*8 + 5) are vector code.
  CHECK_CONTAINS(loops, "SF[ramp(SF.i*8, 1, 8)] = broadcast(0.0f, 8)");
  CHECK_CONTAINS(loops, "for SF.ko in 0..4 {");
  CHECK_CONTAINS(loops, "SF[ramp(SF.i*8, 1, 8)] = SF[ramp(SF.i*8, 1, 8)] + A[ramp(SF.i*37 + SF.ko*8, 1, 8)]");
  CHECK_CONTAINS(loops, "SF[ramp(SF.i*8, 1, 5)] = SF[ramp(SF.i*8, 1, 5)] + A[ramp(SF.i*37 + 32, 1, 5)]");
  CHECK_CONTAINS(loops, "S[S.i] = S[S.i] + SF[S.i*8 + ki]");
}

TEST_CASE("rfactor of the whole reduction loop: SF is the reduction's source") {
  std::string text = R"(
op p(A: i32[6, 9]) -> P {
  compute { P[i] = prod(A[i, k] % 3 + 1 for k in 1..9) }
  schedule cpu { PF = rfactor(P, P.k) }
}
)";
  check_correct(text);
  std::string scheduled = ir_after(text, "apply_schedule");
  CHECK_CONTAINS(scheduled, "block PF(i: 0..6 = PF.i, k: 0..8 = PF.k) {");
  CHECK_CONTAINS(scheduled, "PF[i, k] = A[i, k + 1]%3i32 + 1i32");
  CHECK_CONTAINS(scheduled, "for P.k in 0..8 {");
}

TEST_CASE("rfactor over a fused reduction loop whose guard involves only the factored loop") {
  // f covers 12 points of a 10-point reduction: SF is the identity at f >= 10 (not left unset),
  // and it stays one store of a value, so that SF can be inlined.
  std::string text = R"(
op m(A: f32[6, 10]) -> S {
  compute { S[i] = max(A[i, k] for k in 0..10) }
  schedule cpu {
    ko, ki = split(S.k, 3)
    f = fuse(ko, ki)
    SF = rfactor(S, f)
  }
}
)";
  check_correct(text);
  std::string inlined = text;
  inlined.replace(inlined.find("SF = rfactor(S, f)"), 18, "SF = rfactor(S, f)\n    inline(SF)");
  check_correct(inlined);
  std::string scheduled = ir_after(text, "apply_schedule");
  CHECK_CONTAINS(scheduled, "SF[i, f] = select(f/3*3 + f%3 < 10, A[i, f/3*3 + f%3], -inff)");
}

TEST_CASE("rfactor with two reduction axes and of a hidden reduction stage") {
  check_correct(R"(
op two(X: f32[5, 6, 23]) -> S {
  compute { S[c] = sum(X[h, c, w] for h in 0..5, w in 0..23) }
  schedule cpu {
    wo, wi = split(S.w, 4)
    SF = rfactor(S, wi)
    reorder(SF.h, SF.wo, SF.wi)
    vectorize(SF.wi)
  }
}
)");
  std::string hidden = R"(
op hidden(A: f32[6, 30]) -> N {
  compute { N[i] = sqrt(sum(A[i, k] * A[i, k] for k in 0..30)) + 1.0 }
  schedule cpu {
    ko, ki = split(N.k, 4)
    NF = rfactor(N, ki)
  }
}
)";
  check_correct(hidden);
  CHECK_CONTAINS(ir_after(hidden, "apply_schedule"), "block NF(i: 0..6 = NF.i, ki: 0..4 = NF.ki, ko: reduce 0..8 = NF.ko)");
}

TEST_CASE("rfactor keeps S's other loops: after compute_at of S and a split of its consumer") {
  check_correct(R"(
op at(A: f32[13, 50]) -> N {
  compute {
    S[i] = sum(A[i, k] for k in 0..50)
    N[i] = S[i] * 2.0
  }
  schedule cpu {
    no, ni = split(N.i, 4)
    compute_at(S, no)
    ko, ki = split(S.k, 8)
    SF = rfactor(S, ki)
    compute_at(SF, no)
  }
}
)");
}

TEST_CASE("rfactor in an imported op's schedule: SF's loops are named as the callee wrote them") {
  std::string text = R"(
op rownorm(A: f32[6, 21]) -> N {
  compute {
    S[i] = sum(A[i, k] * A[i, k] for k in 0..21)
    N[i] = sqrt(S[i])
  }
  schedule cpu {
    ko, ki = split(S.k, 8)
    SF = rfactor(S, ki)
    reorder(SF.ko, SF.ki)
    vectorize(SF.ki)
  }
}
op twice(X: f32[6, 21], Y: f32[6, 21]) -> P, Q {
  compute {
    P = rownorm(X)
    Q = rownorm(Y)
  }
}
)";
  FrontendOptions options;
  options.stdlib_dir = TEXC_TEST_STDLIB_DIR;
  Program program = compile_source("test.tex", text, options);
  REQUIRE(program.ops.size() == 2);
  const OpDef& op = program.ops[1];
  LoweredFunc f = lower_for_test(op);
  std::string failure = run_and_compare(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
  std::string loops = to_string(f);
  CHECK_CONTAINS(loops, "for P_SF.ko in");
  CHECK_CONTAINS(loops, "for Q_SF.i in");
}
