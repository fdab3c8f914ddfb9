// The math functions exp2 expm1 log2 log1p rsqrt erf erfc sin cos atan2 round trunc fmod isnan isinf
// (ir/MathFunctions.h) on the interpreter, x86 (in-process JIT) and arm (qemu-aarch64), in f32 and
// f64, scalar and 4-lane vectors, against a long double reference, at the ulp bounds
// docs/language.md states. Inputs include 0, -0, +-inf, NaN, subnormals, huge and tiny values, and
// halves for round; the sign of a zero result must match. The cuda target's libdevice code is
// checked by ptxas only (nvptx_codegen_test, ptx_assemble_test): this machine runs no GPU code.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>

#include "backends/interp/LoopInterpreter.h"
#include "backends/interp/Tensor.h"
#include "backends/llvm/ArmRunner.h"
#include "backends/llvm/LLVMBackend.h"
#include "tests/unit/llvm_test_ops.h"

using namespace texc;
using namespace texc::llvm_test;

namespace {

using Ref = long double (*)(long double, long double);

struct Function {
  const char* name;
  int arity;
  Ref reference;
  double cpu_ulps;  // the bound on x86 and arm (glibc's libm, LLVM's intrinsics), f32 and f64
};

const Function kFunctions[] = {
    {"exp2", 1, [](long double x, long double) { return exp2l(x); }, 2},
    {"expm1", 1, [](long double x, long double) { return expm1l(x); }, 2},
    {"log2", 1, [](long double x, long double) { return log2l(x); }, 2},
    {"log1p", 1, [](long double x, long double) { return log1pl(x); }, 2},
    {"rsqrt", 1, [](long double x, long double) { return 1 / sqrtl(x); }, 2},
    {"erf", 1, [](long double x, long double) { return erfl(x); }, 2},
    {"erfc", 1, [](long double x, long double) { return erfcl(x); }, 5},
    {"sin", 1, [](long double x, long double) { return sinl(x); }, 2},
    {"cos", 1, [](long double x, long double) { return cosl(x); }, 2},
    {"atan2", 2, [](long double y, long double x) { return atan2l(y, x); }, 2},
    {"round", 1, [](long double x, long double) { return roundl(x); }, 0},
    {"trunc", 1, [](long double x, long double) { return truncl(x); }, 0},
    {"fmod", 2, [](long double x, long double y) { return fmodl(x, y); }, 0},
};
const char* kTests[] = {"isnan", "isinf"};
constexpr int64_t kN = 96;

/// The inputs: special values first, then a sweep over [-12, 12]; B cycles through divisors and
/// x-coordinates for fmod and atan2.
template <typename T>
void make_inputs(std::vector<T>& a, std::vector<T>& b) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T denormal = std::numeric_limits<T>::denorm_min() * 3, big = std::numeric_limits<T>::max() / 4;
  std::vector<T> specials = {T(0), T(-0.0), inf, -inf, nan, denormal, -denormal, T(1e-20), T(-1e-20), T(0.5),
                             T(-0.5), T(1.5), T(-1.5), T(2.5), T(-2.5), T(4.5), T(-3.5), big, -big, T(100),
                             T(-100), T(88.5), T(-88.5), T(3e5), T(-3e5), T(10), T(-10), T(1e-6), T(3.14159265358979),
                             T(-0.9999), T(-1), T(-2), T(26), T(-26), T(127.5), T(-150.5), T(1e30), T(-1e30)};
  std::vector<T> divisors = {T(1), T(-1), T(0), T(-0.0), inf, -inf, nan, T(0.3), T(-2.5), denormal, T(7), T(1e30)};
  a.resize(kN);
  b.resize(kN);
  for (int64_t i = 0; i < kN; ++i) {
    a[i] = i < int64_t(specials.size()) ? specials[i] : T(-12 + 24.0 * double(i - specials.size()) / double(kN - 1 - specials.size()));
    b[i] = divisors[i % divisors.size()];
  }
}

/// |got - reference| in units of T's last place at the reference (rounded to T); 0 when both are
/// the same NaN/infinity/signed zero, infinite when they differ in kind or in a zero's sign.
template <typename T>
double ulp_error(T got, long double reference) {
  const double fail = std::numeric_limits<double>::infinity();
  if (std::isnan(reference) || std::isnan(got)) return std::isnan(reference) && std::isnan(got) ? 0 : fail;
  T rounded = T(reference);
  if (std::isinf(rounded) || std::isinf(got)) return rounded == got ? 0 : fail;
  if (got == 0 && reference == 0) return std::signbit(got) == std::signbit(reference) ? 0 : fail;
  int exponent = 0;
  std::frexp(reference, &exponent);
  if (reference == 0) exponent = std::numeric_limits<int>::min();  // the ulp of zero: the smallest subnormal
  int digits = std::numeric_limits<T>::digits, min_exponent = std::numeric_limits<T>::min_exponent;
  long double ulp = std::ldexp(1.0L, std::max(exponent, min_exponent) - digits);
  return double(fabsl((long double)got - reference) / ulp);
}

/// One op computing every function: Out_f[i] = f(A[i]) (or f(A[i], B[i])), then Nan[i] = isnan(A[i]),
/// Inf[i] = isinf(A[i]); `lanes` > 1 vectorizes the loop.
LoweredFunc all_functions(Type t, int lanes, const std::string& name) {
  Buffer a = input("A", t, kN), b = input("B", t, kN);
  std::vector<Buffer> args = {a, b};
  Var i = Variable::make("i");
  Expr index = lanes == 1 ? Expr(i) : ramp(Expr(i) * lanes, lanes);
  std::vector<Stmt> stores;
  for (const Function& f : kFunctions) {
    Buffer out = output(std::string("Out_") + f.name, t, kN);
    args.push_back(out);
    std::vector<Expr> call_args = {load(a, index)};
    if (f.arity == 2) call_args.push_back(load(b, index));
    stores.push_back(store(out, index, call(t.with_lanes(lanes), f.name, call_args)));
  }
  for (const char* f : kTests) {
    Buffer out = output(std::string("Out_") + f, Bool(), kN);
    args.push_back(out);
    stores.push_back(store(out, index, call(Bool(lanes), f, {load(a, index)})));
  }
  return {name, args, loop(i, 0, kN / lanes, Seq::make(stores)),
          std::vector<std::vector<int64_t>>(args.size(), {kN})};
}

/// The outputs of one run, as bytes per output (in the order of all_functions' arguments).
using Outputs = std::vector<std::vector<uint8_t>>;

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

template <typename T>
Outputs run_interp(const LoweredFunc& func, const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<Tensor> tensors;
  for (const Buffer& arg : func.args) tensors.emplace_back(arg->dtype, std::vector<int64_t>{kN});
  std::memcpy(tensors[0].data(), a.data(), a.size() * sizeof(T));
  std::memcpy(tensors[1].data(), b.data(), b.size() * sizeof(T));
  std::vector<Tensor*> pointers;
  for (Tensor& tensor : tensors) pointers.push_back(&tensor);
  LoopInterpreter(func).run(pointers);
  Outputs outputs;
  for (size_t k = 2; k < tensors.size(); ++k) {
    size_t bytes = size_t(kN) * (func.args[k]->dtype.is_bool() ? 1 : sizeof(T));
    const auto* data = static_cast<const uint8_t*>(tensors[k].data());
    outputs.emplace_back(data, data + bytes);
  }
  return outputs;
}

template <typename T>
Outputs run_x86(const LoweredFunc& func, const std::vector<T>& a, const std::vector<T>& b) {
  auto module = JitModule::create({func}, CpuTargetOptions{"x86", "", "", 3});
  Outputs outputs;
  std::vector<void*> pointers = {const_cast<T*>(a.data()), const_cast<T*>(b.data())};
  for (size_t k = 2; k < func.args.size(); ++k) outputs.emplace_back(size_t(kN) * (func.args[k]->dtype.is_bool() ? 1 : sizeof(T)));
  for (auto& o : outputs) pointers.push_back(o.data());
  module->call(func.name, pointers);
  return outputs;
}

template <typename T>
Outputs run_arm(const LoweredFunc& func, const std::vector<T>& a, const std::vector<T>& b) {
  return run_on_arm({func}, func.name, {bytes_of(a), bytes_of(b)}, CpuTargetOptions{"arm", "", "", 3}).outputs;
}

/// Checks every output of a run; `interp` bounds f32 at half an ulp (libm in double, rounded once).
template <typename T>
void check_outputs(const Outputs& outputs, const std::vector<T>& a, const std::vector<T>& b, bool interp) {
  REQUIRE(outputs.size() == std::size(kFunctions) + std::size(kTests));
  size_t k = 0;
  for (const Function& f : kFunctions) {
    CAPTURE(f.name);
    std::vector<T> got(kN);
    std::memcpy(got.data(), outputs[k++].data(), got.size() * sizeof(T));
    double bound = f.cpu_ulps;
    if (interp) bound = sizeof(T) == 4 ? 0.5 + 1e-6 : f.cpu_ulps;  // f64: glibc's double functions
    double worst = 0;
    for (int64_t i = 0; i < kN; ++i) {
      CAPTURE(a[i]);
      CAPTURE(b[i]);
      long double reference = f.reference(a[i], b[i]);
      CAPTURE(double(reference));
      CAPTURE(got[i]);
      double error = ulp_error(got[i], reference);
      CHECK(error <= bound);
      worst = std::max(worst, error);
    }
    MESSAGE(std::string(f.name) << ": worst " << worst << " ulp (bound " << bound << ")");
  }
  for (const char* f : kTests) {
    CAPTURE(f);
    const std::vector<uint8_t>& got = outputs[k++];
    for (int64_t i = 0; i < kN; ++i) {
      CAPTURE(a[i]);
      bool expected = std::string(f) == "isnan" ? std::isnan(a[i]) : std::isinf(a[i]);
      CHECK(got[i] == uint8_t(expected));
    }
  }
}

template <typename T>
void check_target(const std::string& target, Type t) {
  std::vector<T> a, b;
  make_inputs(a, b);
  for (int lanes : {1, 4}) {
    CAPTURE(target);
    CAPTURE(lanes);
    LoweredFunc func = all_functions(t, lanes, "math_" + std::to_string(t.bits) + "_x" + std::to_string(lanes));
    if (target == "interp") check_outputs(run_interp(func, a, b), a, b, true);
    if (target == "x86") check_outputs(run_x86(func, a, b), a, b, false);
    if (target == "arm") check_outputs(run_arm(func, a, b), a, b, false);
  }
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

}  // namespace

TEST_CASE("the ulp measure: exact, one and two ulps off, NaN, infinities and the sign of zero") {
  CHECK(ulp_error(1.0f, 1.0L) == 0);
  CHECK(ulp_error(std::nextafter(1.0f, 2.0f), 1.0L) == 1);
  CHECK(ulp_error(std::nextafter(std::nextafter(1.0, 0.0), 0.0), 1.0L) == 1);  // below 1 the ulp halves
  CHECK(ulp_error(1.0f, 1.0L + 0x1p-24L) == doctest::Approx(0.5));  // f32 has 2^-23 steps above 1
  CHECK(ulp_error(std::nanf(""), 1.0L) == std::numeric_limits<double>::infinity());
  CHECK(ulp_error(1.0f, (long double)NAN) == std::numeric_limits<double>::infinity());
  CHECK(ulp_error(std::numeric_limits<float>::infinity(), 1e39L) == 0);  // rounds to +inf in f32
  CHECK(ulp_error(-0.0f, 0.0L) == std::numeric_limits<double>::infinity());
  CHECK(ulp_error(std::numeric_limits<float>::denorm_min(), 0.0L) == 1);
}

TEST_CASE("interp: libm in double, rounded once") {
  check_target<float>("interp", Float(32));
  check_target<double>("interp", Float(64));
}

TEST_CASE("x86: LLVM intrinsics and libm, scalars and vectors") {
  check_target<float>("x86", Float(32));
  check_target<double>("x86", Float(64));
}

TEST_CASE("arm under qemu: LLVM intrinsics and libm, scalars and NEON vectors") {
  if (!arm_tools_available()) return;
  check_target<float>("arm", Float(32));
  check_target<double>("arm", Float(64));
}

TEST_CASE("x86 and arm: erf on f32 vectors is a polynomial (no erff call), within 2 ulp over a dense sweep") {
  // Every 4099th float in [0, 4.5] and its negation, with 0, -0, NaN, +-inf and a subnormal.
  std::vector<float> a = {0.0f, -0.0f, std::nanf(""), INFINITY, -INFINITY, 1e-40f, -1e-40f, 0.9f, -0.9f};
  for (uint32_t bits = 0; bits < 0x40900000u; bits += 4099) {
    float v;
    std::memcpy(&v, &bits, 4);
    a.push_back(v);
    a.push_back(-v);
  }
  a.resize(a.size() / 8 * 8);
  const int64_t n = int64_t(a.size());
  LoweredFunc func = math_op("erf", Float(32), n, 8, "erf_x8");
  std::string ir = emit_llvm_ir_unoptimized({func}, CpuTargetOptions{"x86", "", "", 3});
  CHECK(ir.find("erff") == std::string::npos);
  auto check = [&](const std::vector<float>& out) {
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      CAPTURE(a[i]);
      CAPTURE(out[i]);
      double error = ulp_error(out[i], erfl((long double)a[i]));
      CHECK(error <= 2);
      worst = std::max(worst, error);
    }
    MESSAGE("erf f32 x8: worst " << worst << " ulp over " << n << " inputs");
  };
  std::vector<float> out(n);
  auto module = JitModule::create({func}, CpuTargetOptions{"x86", "", "", 3});
  module->call("erf_x8", {a.data(), out.data()});
  check(out);
  if (!arm_tools_available()) return;
  Outputs arm = run_on_arm({func}, "erf_x8", {bytes_of(a)}, CpuTargetOptions{"arm", "", "", 3}).outputs;
  std::memcpy(out.data(), arm.at(0).data(), out.size() * sizeof(float));
  check(out);
}
