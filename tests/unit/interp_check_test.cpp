// Unit tests of backends/interp/Check.h and RunOp.h: the tolerance passes f32 rounding of long
// reductions and fails real bugs (a missing term, an off-by-one index, a wrong integer), large
// outputs are checked on a sample, and run_op times, checks, saves and reloads inputs and outputs.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>

#include "backends/interp/Check.h"
#include "backends/interp/LoopInterpreter.h"
#include "backends/interp/Npy.h"
#include "backends/interp/RunOp.h"
#include "ir/IROperators.h"
#include "ir/InputFile.h"
#include "tests/unit/interp_test_ops.h"

using namespace texc;
using namespace texc::interp_test;

namespace {

/// C[i, j] = sum(A[i, k] * B[k, j] for k in 0..K)
OpDef matmul(int64_t M, int64_t N, int64_t K, Type t = Float(32)) {
  Buffer A = buffer("A", t, {M, K}, BufferRole::Input), B = buffer("B", t, {K, N}, BufferRole::Input);
  Buffer C = buffer("C", t, {M, N}, BufferRole::Output);
  return matmul_op(A, B, C, M, N, K);
}

/// The matmul computed as compiled f32 code would: accumulating in float, over k in [k_lo, k_hi).
Tensor float_matmul(const Tensor& a, const Tensor& b, int64_t k_lo, int64_t k_hi) {
  int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  Tensor c(Float(32), {M, N});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (int64_t k = k_lo; k < k_hi; ++k) acc += float(a.get_double(i * K + k)) * float(b.get_double(k * N + j));
      c.set_double(i * N + j, acc);
    }
  return c;
}

std::string temp_dir(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("texc_check_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

}  // namespace

TEST_CASE("f32 rounding of 1024- and 4096-long dot products passes; a missing term fails") {
  for (int64_t K : {1024, 4096}) {
    CAPTURE(K);
    OpDef op = matmul(4, 4, K);
    Tensor a(Float(32), {4, K}), b(Float(32), {K, 4});
    a.fill_random(11);
    b.fill_random(12);
    ReferenceInterpreter ref(op, {&a, &b});
    CheckResult good = check_output(ref, "C", float_matmul(a, b, 0, K));
    CHECK(good.passed);
    CHECK(good.max_rel_err < 1e-5);
    CHECK(good.points_checked == 16);
    CheckResult missing_last = check_output(ref, "C", float_matmul(a, b, 0, K - 1));
    CHECK(!missing_last.passed);
    CheckResult missing_first = check_output(ref, "C", float_matmul(a, b, 1, K));
    CHECK(!missing_first.passed);
    // Each element is judged against the magnitude of its own terms (sum of |A[i, k] * B[k, j]|):
    // every element whose missing term is twice the tolerance of that magnitude differs.
    int64_t detectable = 0;
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        double magnitude = 0;
        ref.evaluate_point("C", {i, j}, &magnitude);
        CHECK(magnitude > std::fabs(ref.evaluate_point("C", {i, j}).f));  // random signs cancel
        detectable += std::fabs(a.get_double(i * K) * b.get_double(j)) > 2 * tolerance_for(Float(32)) * magnitude;
      }
    CHECK(detectable >= 4);
    CHECK(missing_first.mismatches >= detectable);
  }
}

TEST_CASE("a 10^6-term f32 sum computed sequentially passes with its accumulation length; wrong sums fail") {
  const int64_t K = 1000000;
  OpDef op = matmul(2, 2, K);
  CHECK(accumulation_length(op, "C") == K);
  Tensor a(Float(32), {2, K}), b(Float(32), {K, 2});
  for (int64_t k = 0; k < K; ++k) {
    a.set_double(k, 0.3);       // the same term a million times: the rounding error is systematic
    a.set_double(K + k, -0.7);
    b.set_double(k * 2, 1.0);
    b.set_double(k * 2 + 1, 0.5);
  }
  ReferenceInterpreter ref(op, {&a, &b});
  CheckOptions options;
  options.accumulation_length = accumulation_length(op, "C");
  Tensor sequential = float_matmul(a, b, 0, K);
  CheckResult good = check_output(ref, "C", sequential, options);
  CHECK(good.passed);
  CHECK(good.max_rel_err > 1e-4);  // more than the base tolerance allows ...
  CHECK(!check_output(ref, "C", sequential).passed);  // ... so without the length it would fail
  CHECK(good.max_rel_err <= tolerance_for(Float(32), K));
  // A kernel that drops a tenth of the terms, or computes a wrong value, still fails.
  CHECK(!check_output(ref, "C", float_matmul(a, b, 0, K - K / 10), options).passed);
  Tensor wrong = sequential;
  wrong.set_double(3, wrong.get_double(3) * 1.2);
  CHECK(!check_output(ref, "C", wrong, options).passed);
  // Short reductions keep the base tolerance: n * u is below it.
  CHECK(tolerance_for(Float(32), 1024) == 1e-4);
  CHECK(tolerance_for(Float(32), K) == doctest::Approx(K * 0x1p-24));
  CHECK(tolerance_for(Int(32), K) == 0);
  // bf16: base 8e-2, unit roundoff 2^-8 (f16: 1e-2 and 2^-11).
  CHECK(tolerance_for(BFloat16()) == 8e-2);
  CHECK(tolerance_for(BFloat16(), 16) == 8e-2);
  CHECK(tolerance_for(BFloat16(), 1000) == doctest::Approx(1000 * 0x1p-8));
  CHECK(tolerance_for(Float(16)) == 1e-2);
}

/// Y[i] = X[i] * S[0] (element-wise: each output's magnitude is its own |value|).
OpDef scale_op(int64_t n) {
  Buffer X = buffer("X", Float(32), {n}, BufferRole::Input), S = buffer("S", Float(32), {1}, BufferRole::Input);
  Buffer Y = buffer("Y", Float(32), {n}, BufferRole::Output);
  Var i = Variable::make("i");
  Stage s;
  s.name = "Y";
  s.buffer = Y;
  s.axes = {IterVar{i, make_int(0), make_int(n)}};
  s.body = Load::make(X, {i}) * Load::make(S, {make_int(0)});
  OpDef op;
  op.name = "scale";
  op.inputs = {X, S};
  op.outputs = {Y};
  op.stages = {s};
  return op;
}

TEST_CASE("each element has its own bound: one reference value of 1e30 hides no error in the others") {
  OpDef op = scale_op(64);
  Tensor x(Float(32), {64}), one(Float(32), {1});
  x.fill_random(5);
  x.set_double(17, 1e30);
  one.set_double(0, 1.0);
  ReferenceInterpreter ref(op, {&x, &one});
  Tensor y = ref.evaluate_all("Y");
  CHECK(check_output(ref, "Y", y).passed);
  for (int64_t i = 0; i < 64; ++i)
    if (i != 17) y.set_double(i, y.get_double(i) + 1000);
  CheckResult r = check_output(ref, "Y", y);
  CHECK(!r.passed);
  CHECK(r.mismatches == 63);
  CHECK(r.message.find("Y[0] = ") == 0);
  CHECK(r.message.find("(63 of 64 checked elements differ)") != std::string::npos);
}

TEST_CASE("an output of zeros against a subnormal reference of 1e-42 is judged by the stated floor") {
  OpDef op = scale_op(64);
  Tensor x(Float(32), {64}), one(Float(32), {1});
  for (int64_t i = 0; i < 64; ++i) x.set_double(i, 1e-42);
  one.set_double(0, 1.0);
  ReferenceInterpreter ref(op, {&x, &one});
  CHECK(absolute_floor_for(Float(32)) == std::ldexp(1.0, -126));  // f32's smallest normal, ~1.2e-38
  CHECK(absolute_floor_for(Float(16)) == std::ldexp(1.0, -14));
  CHECK(absolute_floor_for(BFloat16()) == std::ldexp(1.0, -126));  // bf16 has f32's exponent range
  CHECK(absolute_floor_for(Float(32), 1000) == 1000 * std::ldexp(1.0, -126));
  CHECK(absolute_floor_for(Int(32)) == 0);
  Tensor zeros(Float(32), {64});
  for (int64_t i = 0; i < 64; ++i) zeros.set_double(i, 0.0);  // subnormals flushed to zero
  CheckResult flushed = check_output(ref, "Y", zeros);
  CHECK(flushed.passed);
  CHECK(flushed.max_rel_err <= tolerance_for(Float(32)));
  // A value above the floor is an error, however small it is next to 1.
  Tensor tiny = zeros;
  tiny.set_double(5, 1e-30);
  CheckResult r = check_output(ref, "Y", tiny);
  CHECK(!r.passed);
  CHECK(r.mismatches == 1);
  CHECK(r.message.find("Y[5] = 1e-30, expected 1.0005271e-42") == 0);
}

TEST_CASE("a sum that cancels to near zero is judged by the magnitude of its terms") {
  // C[0, 0] = 1e8 * 1 + (-1e8) * 1 + 1 * 1 = 1 exactly; f32 arithmetic in another order gives 0
  // (1e8 + 1 rounds to 1e8), an error of 1 against a sum of |terms| of 2e8 + 1: within 1e-4 of it.
  OpDef op = matmul(1, 1, 3);
  Tensor a(Float(32), {1, 3}), b(Float(32), {3, 1});
  a.set_double(0, 1e8), a.set_double(1, 1), a.set_double(2, -1e8);
  for (int64_t k = 0; k < 3; ++k) b.set_double(k, 1.0);
  ReferenceInterpreter ref(op, {&a, &b});
  double magnitude = 0;
  CHECK(ref.evaluate_point("C", {0, 0}, &magnitude).f == 1.0);
  CHECK(magnitude == 2e8 + 1);
  Tensor reordered(Float(32), {1, 1});
  reordered.set_double(0, float(float(1e8f + 1.0f) - 1e8f));
  CHECK(reordered.get_double(0) == 0.0);
  CHECK(check_output(ref, "C", reordered).passed);
  reordered.set_double(0, 1e5);  // more than 1e-4 of the terms' magnitude off: an error
  CHECK(!check_output(ref, "C", reordered).passed);
}

TEST_CASE("an output whose checked reference values are all NaN or infinite fails: nothing was compared") {
  OpDef op = scale_op(8);
  Tensor x(Float(32), {8}), s(Float(32), {1});
  x.fill_random(3);
  s.set_double(0, std::nan(""));
  ReferenceInterpreter ref(op, {&x, &s});
  Tensor y = ref.evaluate_all("Y");  // NaN everywhere, as the reference
  CheckResult r = check_output(ref, "Y", y);
  CHECK(!r.passed);
  CHECK(r.mismatches == 0);
  CHECK(r.nonfinite_expected == 8);
  CHECK(r.message.find("every one of the 8 checked points of output 'Y' is NaN or infinite in the reference, "
                       "so no number was compared") == 0);
  // Some finite points: those are compared, and it passes.
  s.set_double(0, 2.0);
  x.set_double(3, INFINITY);
  ReferenceInterpreter partly(op, {&x, &s});
  CheckResult p = check_output(partly, "Y", partly.evaluate_all("Y"));
  CHECK(p.passed);
  CHECK(p.nonfinite_expected == 1);
}

TEST_CASE("integers must match exactly; shape and type mismatches fail") {
  OpDef op = matmul(3, 3, 3, Int(32));
  Tensor a(Int(32), {3, 3}), b(Int(32), {3, 3});
  a.fill_random(1);
  b.fill_random(2);
  ReferenceInterpreter ref(op, {&a, &b});
  Tensor c = ref.evaluate_all("C");
  CHECK(check_output(ref, "C", c).passed);
  c.set_int(4, c.get_int(4) + 1);
  CheckResult r = check_output(ref, "C", c);
  CHECK(!r.passed);
  CHECK(r.mismatches == 1);
  CHECK(r.message.find("C[1, 1] = ") == 0);
  CHECK(!check_output(ref, "C", Tensor(Int(32), {3, 4})).passed);
  CHECK(!check_output(ref, "C", Tensor(Float(32), {3, 3})).passed);
}

TEST_CASE("outputs over 100k elements are checked on a sample of at least 1000 points") {
  OpDef op = matmul(400, 300, 2);
  Tensor a(Float(32), {400, 2}), b(Float(32), {2, 300});
  a.fill_random(3);
  b.fill_random(4);
  ReferenceInterpreter ref(op, {&a, &b});
  Tensor c = float_matmul(a, b, 0, 2);
  CheckResult r = check_output(ref, "C", c);
  CHECK(r.passed);
  CHECK(r.sampled);
  CHECK(r.points_checked >= 1000);
  CHECK(r.points_checked < 1100);
  // An error in a whole row is found by the sample.
  for (int64_t j = 0; j < 300; ++j) c.set_double(123 * 300 + j, 5.0);
  CHECK(!check_output(ref, "C", c).passed);
}

TEST_CASE("run_op: checks, times, saves inputs and outputs, reloads them") {
  const int64_t M = 8, N = 8, K = 8;
  OpDef op = matmul(M, N, K);
  const Buffer &A = op.inputs[0], &B = op.inputs[1], &C = op.outputs[0];
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Stmt body = For::make(
      i, make_int(0), make_int(M), ForKind::Serial,
      For::make(j, make_int(0), make_int(N), ForKind::Serial,
                Seq::make({Store::make(C, {i, j}, make_float(0)),
                           For::make(k, make_int(0), make_int(K), ForKind::Serial,
                                     Store::make(C, {i, j}, Load::make(C, {i, j}) + Load::make(A, {i, k}) * Load::make(B, {k, j})))})));
  LoopInterpreter interp(LoweredFunc{"matmul", {A, B, C}, body, {}});
  OpExecutor exec = [&](std::vector<Tensor*>& args) { interp.run(args); };

  std::string dir = temp_dir("io");
  RunOptions options;
  options.repeat = 3;
  options.save_io_dir = dir;
  RunResult r = run_op(op, exec, options);
  CHECK(r.passed);
  CHECK(r.points_checked == M * N);
  CHECK(r.median_ms > 0);
  CHECK(r.gflops > 0);
  CHECK(std::filesystem::exists(dir + "/matmul.A.npy"));
  CHECK(std::filesystem::exists(dir + "/matmul.C.npy"));
  CHECK(format_result_line(r).find("matmul                   interp  PASS  max_rel_err") == 0);
  std::string json = format_result_json(r);
  CHECK(json.find("{\"op\": \"matmul\", \"target\": \"interp\", \"status\": \"pass\", \"max_rel_err\": ") == 0);
  CHECK(json.find("\"threads\": 1") != std::string::npos);

  // The saved inputs reproduce the saved output exactly.
  Tensor saved_c = read_npy(dir + "/matmul.C.npy");
  RunOptions reload;
  reload.inputs_dir = dir;
  reload.save_io_dir = dir + "/again";
  CHECK(run_op(op, exec, reload).passed);
  Tensor again_c = read_npy(dir + "/again/matmul.C.npy");
  CHECK(std::string(static_cast<const char*>(saved_c.data()), saved_c.num_bytes()) ==
        std::string(static_cast<const char*>(again_c.data()), again_c.num_bytes()));

  // An input file of the wrong dtype is a user error naming both. (The runs above read B's file;
  // a new run may write it.)
  forget_input_files();
  write_npy(dir + "/matmul.B.npy", Tensor(Float(64), {K, N}));
  std::string message;
  try {
    run_op(op, exec, reload);
  } catch (const NpyError& e) {
    message = e.what();
  }
  CHECK(message == "input 'B' of op 'matmul' must be f32[8, 8] (dtype '<f4'), but '" + dir +
                       "/matmul.B.npy' holds f64[8, 8] (dtype '<f8')");
  std::filesystem::remove_all(dir);

  // A failing executor: the message of the loop interpreter's error is the result's message.
  OpExecutor broken = [&](std::vector<Tensor*>& args) {
    Stmt oob = Store::make(C, {make_int(0), make_int(N)}, make_float(0));
    LoopInterpreter(LoweredFunc{"broken", {A, B, C}, oob, {}}).run(args);
  };
  RunResult f = run_op(op, broken, RunOptions{});
  CHECK(!f.passed);
  CHECK(f.message == "out-of-bounds store to 'C' at [0, 8]: index 8 in dimension 1 is outside [0, 8) (shape [8, 8])");
  CHECK(format_result_json(f).find("\"status\": \"fail\"") != std::string::npos);
}
