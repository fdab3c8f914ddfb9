// Tests of the arm target run for real: ops compiled for aarch64, cross-linked with the aarch64
// libtexrt.a and executed under qemu-aarch64 by ArmRunner, outputs compared with values computed
// here. Prints a skip line when the cross tools are not installed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "backends/llvm/ArmRunner.h"
#include "ir/ConstEval.h"
#include "tests/unit/llvm_test_ops.h"

using namespace texc;
using namespace texc::llvm_test;

namespace {

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
std::vector<T> values_of(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

bool arm_tools_available() {
  try {
    check_arm_tools();
    return true;
  } catch (const MissingToolError& e) {
    std::cout << "SKIP arm tests: " << e.what() << "\n";
    return false;
  }
}

const CpuTargetOptions kArm{"arm", "", "", 3};

}  // namespace

TEST_CASE("arm: elementwise, parallel matmul and a vectorized loop under qemu") {
  if (!arm_tools_available()) return;
  {
    const int64_t n = 100;
    std::vector<float> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) a[i] = float(i) * 0.5f, b[i] = 3.0f - float(i);
    ArmRunOptions options;
    options.repeat = 3;
    ArmRunResult r = run_on_arm({elementwise_add(n)}, "add", {bytes_of(a), bytes_of(b)}, kArm, options);
    REQUIRE(r.outputs.size() == 1);
    auto c = values_of<float>(r.outputs[0]);
    for (int64_t i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
    CHECK(r.times_ms.size() == 3);
    CHECK(r.emulated);
    CHECK(r.timing_label() == "emulated (qemu-aarch64)");
  }
  {
    const int64_t M = 23, N = 17, K = 11;
    std::vector<float> a(M * K), b(K * N);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) - 3.0f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) * 0.5f;
    ArmRunOptions options;
    options.num_threads = 2;
    // Two ops in one object; the runner calls the one named.
    ArmRunResult r = run_on_arm({elementwise_add(4), matmul(M, N, K, true)}, "matmul", {bytes_of(a), bytes_of(b)},
                                CpuTargetOptions{"arm", "cortex-a53", "", 3}, options);
    auto c = values_of<float>(r.outputs.at(0));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float expected = 0;
        for (int64_t k = 0; k < K; ++k) expected += a[i * K + k] * b[k * N + j];
        REQUIRE(c[i * N + j] == doctest::Approx(expected));
      }
  }
  {
    const int64_t n = 37;
    std::vector<float> alpha = {-2.0f}, x(n), y0(n);
    for (int64_t i = 0; i < n; ++i) x[i] = float(i), y0[i] = 1.0f / float(i + 1);
    ArmRunResult r = run_on_arm({vectorized_axpy(n)}, "axpy", {bytes_of(alpha), bytes_of(x), bytes_of(y0)}, kArm);
    auto y = values_of<float>(r.outputs.at(0));
    for (int64_t i = 0; i < n; ++i) REQUIRE(y[i] == doctest::Approx(-2.0f * x[i] + y0[i]));
  }
}

TEST_CASE("arm: floor division, guarded gathers and math on vectors under qemu") {
  if (!arm_tools_available()) return;
  {
    const int64_t n = 16;
    std::vector<int32_t> a = {7, -7, 7, -7, 0, -1, 13, -13, 100, -100, INT32_MIN, INT32_MIN, 5, -128, 1, -9};
    std::vector<int32_t> b = {2, 2, -2, -2, 3, 3, 0, 0, 7, -7, -1, 3, 5, -1, -100, 4};
    ArmRunResult r = run_on_arm({floor_div_mod(Int(32), n, 4, "divmod")}, "divmod", {bytes_of(a), bytes_of(b)}, kArm);
    REQUIRE(r.outputs.size() == 7);
    auto q = values_of<int32_t>(r.outputs[0]), m = values_of<int32_t>(r.outputs[1]);
    auto q4 = values_of<int32_t>(r.outputs[2]), m4 = values_of<int32_t>(r.outputs[3]);
    auto qm3 = values_of<int32_t>(r.outputs[4]), mm3 = values_of<int32_t>(r.outputs[5]);
    for (int64_t i = 0; i < n; ++i) {
      CAPTURE(i);
      int64_t expected_q = b[i] == 0 ? 0 : (b[i] == -1 ? int64_t(int32_t(-uint32_t(a[i]))) : floor_div(a[i], b[i]));
      CHECK(q[i] == expected_q);
      CHECK(m[i] == ((b[i] == 0 || b[i] == -1) ? 0 : floor_mod(a[i], b[i])));
      CHECK(q4[i] == floor_div(a[i], 4));
      CHECK(m4[i] == floor_mod(a[i], 4));
      CHECK(qm3[i] == floor_div(a[i], -3));
      CHECK(mm3[i] == floor_mod(a[i], -3));
    }
  }
  {
    const int64_t n = 32;
    std::vector<float> a(n);
    std::vector<int64_t> idx(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = float(i) + 0.25f;
      idx[i] = i % 4 == 0 ? (int64_t(1) << 40) : (i * 5) % n;
    }
    ArmRunResult r = run_on_arm({guarded_gather(n, 4, "gather")}, "gather", {bytes_of(a), bytes_of(idx)}, kArm);
    auto out = values_of<float>(r.outputs.at(0));
    for (int64_t i = 0; i < n; ++i) REQUIRE(out[i] == (idx[i] < n ? a[idx[i]] : -1.0f));
  }
  for (const char* f : {"exp", "tanh", "sigmoid", "log", "sqrt"}) {
    CAPTURE(f);
    const int64_t n = 32;
    std::vector<float> a(n);
    for (int64_t i = 0; i < n; ++i) a[i] = 0.05f + 0.37f * float(i) * (std::string(f) == "exp" ? 1 : 0.5f);
    ArmRunResult r = run_on_arm({math_op(f, Float(32), n, 4, "m")}, "m", {bytes_of(a)}, kArm);
    auto out = values_of<float>(r.outputs.at(0));
    for (int64_t i = 0; i < n; ++i) {
      double x = a[i];
      double expected = std::string(f) == "exp" ? std::exp(x)
                        : std::string(f) == "tanh" ? std::tanh(x)
                        : std::string(f) == "sigmoid" ? 1 / (1 + std::exp(-x))
                        : std::string(f) == "log" ? std::log(x) : std::sqrt(x);
      REQUIRE(out[i] == doctest::Approx(expected).epsilon(1e-6));
    }
  }
}

TEST_CASE("arm: a missing cross tool is a MissingToolError") {
  ArmRunOptions options;
  options.texrt_lib = "/nonexistent/libtexrt.a";
  CHECK_THROWS_AS(check_arm_tools(options), MissingToolError);
  const char* path = std::getenv("PATH");
  std::string saved = path ? path : "";
  setenv("PATH", "/nonexistent", 1);
  CHECK_THROWS_AS(run_on_arm({elementwise_add(4)}, "add", {}, kArm), MissingToolError);
  setenv("PATH", saved.c_str(), 1);
}
