// tuner/Space.h and tuner/Candidate.h: enumerating a knob space (lists, factors(N), bools, knobs
// under `if`), index round trips, canonical indices, and configurations that fail to lower
// recorded as invalid without a measurement.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <set>

#include "schedule_test_support.h"
#include "lower/gpu/MmaIntrinsics.h"
#include "tuner/Candidate.h"
#include "tuner/Space.h"

using namespace texc;
using namespace texc::testing;

namespace {
const char* kKnobs =
    "op mm(A: f32[8, 4], B: f32[4, 12]) -> C {\n"
    "  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..4) }\n"
    "  schedule cpu {\n"
    "    knob TI in [2, 4, 8]\n"
    "    knob TJ in factors(12)\n"
    "    knob P in [true, false]\n"
    "    io, ii = split(C.i, TI)\n"
    "    jo, ji = split(C.j, TJ)\n"
    "    if P { knob U in [1, 2]\n parallel(io) } else { parallel(C.k) }\n"
    "  }\n"
    "  schedule x86 { knob X in [1, 2, 3] }\n"
    "}\n";
}  // namespace

TEST_CASE("the space of the blocks that apply: every knob, first-declared knob least significant") {
  OpDef op = compile_op(kKnobs);
  Space space(op, "interp");  // the cpu block; the x86 block does not apply to interp
  REQUIRE(space.knobs().size() == 4);
  CHECK(space.knobs()[1].values == std::vector<int64_t>{12, 1, 2, 3, 4, 6});  // factors(12), default first
  CHECK(space.size() == 3 * 6 * 2 * 2);
  KnobConfig c0 = space.config(0);
  CHECK(c0 == KnobConfig{{"TI", 2}, {"TJ", 12}, {"P", 1}, {"U", 1}});
  KnobConfig c1 = space.config(1);
  CHECK(c1.at("TI") == 4);
  CHECK(c1.at("TJ") == 12);
  CHECK(space.config(3).at("TJ") == 1);
  std::set<KnobConfig> seen;
  for (uint64_t i = 0; i < space.size(); ++i) {
    KnobConfig c = space.config(i);
    CHECK(space.index(c) == i);
    seen.insert(c);
  }
  CHECK(seen.size() == space.size());
  CHECK(space.describe(space.config(0)) == "TI=2 TJ=12 P=true U=1");
  CHECK(space.index({{"TI", 5}}) == UINT64_MAX);

  Space x86(op, "x86");  // the exact block wins over cpu
  CHECK(x86.size() == 3);
}

TEST_CASE("a knob under an if that a configuration does not take does not make a new candidate") {
  OpDef op = compile_op(kKnobs);
  Space space(op, "interp");
  uint64_t p_false_u2 = space.index({{"TI", 2}, {"TJ", 12}, {"P", 0}, {"U", 2}});
  uint64_t p_false_u1 = space.index({{"TI", 2}, {"TJ", 12}, {"P", 0}, {"U", 1}});
  CHECK(space.canonical(p_false_u2) == p_false_u1);
  uint64_t p_true_u2 = space.index({{"TI", 2}, {"TJ", 12}, {"P", 1}, {"U", 2}});
  CHECK(space.canonical(p_true_u2) == p_true_u2);
  std::set<uint64_t> distinct;
  for (uint64_t i = 0; i < space.size(); ++i) distinct.insert(space.canonical(i));
  CHECK(distinct.size() == 3 * 6 * (1 + 2));
}

TEST_CASE("a configuration that fails to lower is invalid with the schedule's message, without a measurement") {
  OpDef op = compile_op(kKnobs);
  Space space(op, "interp");
  LowerSettings settings;
  settings.target = "interp";
  Candidate good = lower_candidate(op, space, space.index({{"P", 1}}), settings);
  CHECK(good.valid);
  CHECK(good.features.size() == size_t(kFeatureLength));
  Candidate bad = lower_candidate(op, space, space.index({{"P", 0}}), settings);
  CHECK_FALSE(bad.valid);
  CHECK_CONTAINS(bad.invalid_reason, "cannot parallelize loop 'C.k'");
  CHECK(bad.features.empty());
}

TEST_CASE("a cuda candidate is checked against the --arch of the tune, not the default sm_80") {
  // 200 KiB of shared memory per block: over sm_80's 163 KiB, within sm_90's 227 KiB.
  OpDef op = compile_op(
      "op big(A: f32[2, 51200]) -> B {\n"
      "  compute { B[r, i] = A[r, i] * 2.0 }\n"
      "  schedule cuda {\n"
      "    AS = cache_read(A, shared, B)\n"
      "    io, ii = split(B.i, 1024)\n"
      "    reorder(B.r, ii, io)\n"
      "    bind(B.r, blockIdx.x)\n"
      "    bind(ii, threadIdx.x)\n"
      "    compute_at(AS, B.r)\n"
      "    ao, ai = split(AS.i, 1024)\n"
      "    reorder(ai, ao)\n"
      "    bind(ai, threadIdx.x)\n"
      "  }\n"
      "}\n");
  Space space(op, "cuda");
  LowerSettings settings;
  settings.target = "cuda";
  settings.arch = "sm_90";
  Candidate on_sm90 = lower_candidate(op, space, 0, settings);
  CHECK_MESSAGE(on_sm90.valid, on_sm90.invalid_reason);
  settings.arch = "sm_80";
  Candidate on_sm80 = lower_candidate(op, space, 0, settings);
  CHECK_FALSE(on_sm80.valid);
  CHECK_CONTAINS(on_sm80.invalid_reason, "exceeds the 166912 bytes of --arch sm_80");
}

TEST_CASE("a configuration whose kernel multiplies in TF32 is invalid unless --allow-tf32; 3xTF32 is not TF32") {
  OpDef op = compile_op(
      "import linalg.matmul\n"
      "op proj(X: f32[128, 64], W: f32[64, 96]) -> Y {\n"
      "  compute { Y = matmul(X, W) }\n"
      "}\n");
  Space space(op, "cuda");
  LowerSettings settings;
  settings.target = "cuda";
  settings.builtin_intrinsics = cuda_mma_intrinsics();
  settings.fixed = {{"MMG_WN", 1}};
  KnobConfig tf32 = {{"MMG_TC", 1}}, three = {{"MMG_TC", 2}};
  Candidate refused = lower_candidate(op, space, space.index(tf32), settings);
  CHECK_FALSE(refused.valid);
  CHECK_CONTAINS(refused.invalid_reason, "multiplies in TF32");
  CHECK_CONTAINS(refused.invalid_reason, "--allow-tf32");
  Candidate accurate = lower_candidate(op, space, space.index(three), settings);
  CHECK_MESSAGE(accurate.valid, accurate.invalid_reason);
  settings.allow_tf32 = true;
  Candidate allowed = lower_candidate(op, space, space.index(tf32), settings);
  CHECK_MESSAGE(allowed.valid, allowed.invalid_reason);
  CHECK(input_unit_roundoff(allowed.func.body) > 0);
}
