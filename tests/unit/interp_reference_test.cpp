// Unit tests of backends/interp/ReferenceInterpreter.h: hand-built OpDefs whose values are
// written by hand (matmul, floor division and modulo of negatives, int8 products with int32
// accumulation, shifts and wrap-around, every reduction kind, nested reductions, rounding at stage
// boundaries, lazy select) and out-of-bounds reads reported as InterpError.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <functional>

#include "backends/interp/Half.h"
#include "backends/interp/InterpError.h"
#include "backends/interp/ReferenceInterpreter.h"
#include "ir/IROperators.h"

using namespace texc;

namespace {

Buffer input(const std::string& name, Type t, std::vector<int64_t> shape) {
  std::vector<Expr> dims;
  for (int64_t e : shape) dims.push_back(make_int(e));
  return BufferNode::make(name, t, dims, MemScope::Global, BufferRole::Input);
}

/// name[axes...] = body, with axis extents `extents`.
Stage stage(const std::string& name, Type t, const std::vector<Var>& axes, std::vector<int64_t> extents, Expr body,
            BufferRole role = BufferRole::Output) {
  Stage s;
  s.name = name;
  std::vector<Expr> dims;
  for (size_t d = 0; d < axes.size(); ++d) {
    dims.push_back(make_int(extents[d]));
    s.axes.push_back(IterVar{axes[d], make_int(0), make_int(extents[d]), false});
  }
  s.buffer = BufferNode::make(name, t, dims, MemScope::Global, role);
  s.body = std::move(body);
  return s;
}

IterVar reduce_axis(const Var& v, int64_t lo, int64_t extent) { return IterVar{v, make_int(lo), make_int(extent), true}; }

Tensor tensor(Type t, std::vector<int64_t> shape, const std::vector<double>& values) {
  Tensor x(t, std::move(shape));
  REQUIRE(int64_t(values.size()) == x.num_elements());
  for (size_t i = 0; i < values.size(); ++i) x.set_double(int64_t(i), values[i]);
  return x;
}

OpDef make_op(const std::string& name, std::vector<Buffer> inputs, std::vector<Stage> stages) {
  OpDef op;
  op.name = name;
  op.inputs = std::move(inputs);
  for (const Stage& s : stages)
    if (s.buffer->role == BufferRole::Output) op.outputs.push_back(s.buffer);
  op.stages = std::move(stages);
  return op;
}

}  // namespace

TEST_CASE("matmul 2x3x2") {
  Buffer A = input("A", Float(32), {2, 3}), B = input("B", Float(32), {3, 2});
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Expr body = Reduce::make(ReduceKind::Sum, Load::make(A, {i, k}) * Load::make(B, {k, j}), {reduce_axis(k, 0, 3)});
  OpDef op = make_op("matmul", {A, B}, {stage("C", Float(32), {i, j}, {2, 2}, body)});
  Tensor a = tensor(Float(32), {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = tensor(Float(32), {3, 2}, {7, 8, 9, 10, 11, 12});
  ReferenceInterpreter ref(op, {&a, &b});
  CHECK(ref.evaluate_point("C", {0, 0}).f == 58);
  CHECK(ref.evaluate_point("C", {0, 1}).f == 64);
  CHECK(ref.evaluate_point("C", {1, 0}).f == 139);
  CHECK(ref.evaluate_point("C", {1, 1}).f == 154);
  Tensor c = ref.evaluate_all("C");
  CHECK(c.describe() == "f32[2, 2]");
  CHECK(c.get_double(3) == 154);
}

TEST_CASE("floor division and modulo of negatives, and index arithmetic with them") {
  Buffer A = input("A", Int(32), {7});
  Var i = Variable::make("i");
  Expr a = Load::make(A, {i});
  Expr three = make_int(3, Int(32)), minus_three = make_int(-3, Int(32));
  // G[i] = A[(i - 5) / 3 + 2]: (i - 5) / 3 is -2 -2 -1 -1 -1 0 0, so i in 0..7 reads A[0, 0, 1, 1, 1, 2, 2].
  Expr g_index = (Expr(i) - 5) / 3 + 2;
  OpDef op = make_op("divmod", {A},
                     {stage("D", Int(32), {i}, {7}, a / three), stage("M", Int(32), {i}, {7}, a % three),
                      stage("N", Int(32), {i}, {7}, a % minus_three), stage("Q", Int(32), {i}, {7}, a / minus_three),
                      stage("G", Int(32), {i}, {7}, Load::make(A, {g_index}))});
  Tensor x = tensor(Int(32), {7}, {-7, -6, -1, 0, 1, 5, 7});
  ReferenceInterpreter ref(op, {&x});
  std::vector<int64_t> div = {-3, -2, -1, 0, 0, 1, 2}, mod = {2, 0, 2, 0, 1, 2, 1};
  std::vector<int64_t> mod_neg = {-1, 0, -1, 0, -2, -1, -2}, div_neg = {2, 2, 0, 0, -1, -2, -3};
  std::vector<int64_t> gathered = {-7, -7, -6, -6, -6, -1, -1};
  for (int64_t p = 0; p < 7; ++p) {
    CAPTURE(p);
    CHECK(ref.evaluate_point("D", {p}).i == div[p]);
    CHECK(ref.evaluate_point("M", {p}).i == mod[p]);
    CHECK(ref.evaluate_point("N", {p}).i == mod_neg[p]);
    CHECK(ref.evaluate_point("Q", {p}).i == div_neg[p]);
    CHECK(ref.evaluate_point("G", {p}).i == gathered[p]);
  }
}

TEST_CASE("int8 products with int32 accumulation, shifts and wrap-around") {
  Buffer A = input("A", Int(8), {3}), B = input("B", Int(8), {3});
  Var i = Variable::make("i"), k = Variable::make("k");
  Expr acc = Reduce::make(ReduceKind::Sum, Cast::make(Int(32), Load::make(A, {k})) * Cast::make(Int(32), Load::make(B, {k})),
                          {reduce_axis(k, 0, 3)});
  Expr two = make_int(2, Int(32));
  // S = i8(acc >> 2): 100*100 + 50*100 + (-128)*2 = 14744; >> 2 = 3686; i8(3686) = 102.
  Stage s = stage("S", Int(8), {i}, {1}, Cast::make(Int(8), Binary::make(BinaryOp::Shr, acc, two)));
  // P[i] = A[i] * B[i] in i8 wraps: 10000 -> 16, 5000 -> -120, -256 -> 0.
  Stage p = stage("P", Int(8), {i}, {3}, Load::make(A, {i}) * Load::make(B, {i}));
  // R[i] = (A[i] - 64) >> 2 is arithmetic: 36 >> 2 = 9, -14 >> 2 = -4, -192 wraps to 64 -> 16.
  Stage r = stage("R", Int(8), {i}, {3}, Binary::make(BinaryOp::Shr, Load::make(A, {i}) - make_int(64, Int(8)),
                                                      make_int(2, Int(8))));
  // U[i] = u8(A[i]) << 1 wraps at 8 bits: 200, 100, 0 (128 << 1 = 256).
  Stage u = stage("U", UInt(8), {i}, {3}, Binary::make(BinaryOp::Shl, Cast::make(UInt(8), Load::make(A, {i})),
                                                       make_int(1, UInt(8))));
  OpDef op = make_op("int8", {A, B}, {s, p, r, u});
  Tensor a = tensor(Int(8), {3}, {100, 50, -128}), b = tensor(Int(8), {3}, {100, 100, 2});
  ReferenceInterpreter ref(op, {&a, &b});
  CHECK(ref.evaluate_point("S", {0}).i == 102);
  CHECK(ref.evaluate_point("P", {0}).i == 16);
  CHECK(ref.evaluate_point("P", {1}).i == -120);
  CHECK(ref.evaluate_point("P", {2}).i == 0);
  CHECK(ref.evaluate_point("R", {0}).i == 9);
  CHECK(ref.evaluate_point("R", {1}).i == -4);
  CHECK(ref.evaluate_point("R", {2}).i == 16);
  CHECK(ref.evaluate_point("U", {0}).i == 200);
  CHECK(ref.evaluate_point("U", {1}).i == 100);
  CHECK(ref.evaluate_point("U", {2}).i == 0);
}

TEST_CASE("max, min and prod reductions") {
  Buffer A = input("A", Float(32), {2, 3});
  Var i = Variable::make("i"), k = Variable::make("k");
  auto red = [&](ReduceKind kind) { return Reduce::make(kind, Load::make(A, {i, k}), {reduce_axis(k, 0, 3)}); };
  OpDef op = make_op("reductions", {A},
                     {stage("MX", Float(32), {i}, {2}, red(ReduceKind::Max)),
                      stage("MN", Float(32), {i}, {2}, red(ReduceKind::Min)),
                      stage("PR", Float(32), {i}, {2}, red(ReduceKind::Prod)),
                      stage("SM", Float(32), {i}, {2}, red(ReduceKind::Sum))});
  Tensor a = tensor(Float(32), {2, 3}, {1, -2, 3, 0.5, 4, -1});
  ReferenceInterpreter ref(op, {&a});
  CHECK(ref.evaluate_point("MX", {0}).f == 3);
  CHECK(ref.evaluate_point("MX", {1}).f == 4);
  CHECK(ref.evaluate_point("MN", {0}).f == -2);
  CHECK(ref.evaluate_point("MN", {1}).f == -1);
  CHECK(ref.evaluate_point("PR", {0}).f == -6);
  CHECK(ref.evaluate_point("PR", {1}).f == -2);
  CHECK(ref.evaluate_point("SM", {1}).f == 3.5);
}

TEST_CASE("a reduction inside a larger expression, two in one body, and a two-stage blur") {
  Buffer A = input("A", Float(32), {4, 4});
  Var i = Variable::make("i"), j = Variable::make("j"), di = Variable::make("di"), dj = Variable::make("dj");
  // B[i, j] = sum(A[i + di, j + dj] for di in 0..3, dj in 0..3) / 9.0
  Expr box = Reduce::make(ReduceKind::Sum, Load::make(A, {Expr(i) + Expr(di), Expr(j) + Expr(dj)}),
                          {reduce_axis(di, 0, 3), reduce_axis(dj, 0, 3)});
  Stage b = stage("B", Float(32), {i, j}, {2, 2}, box / make_float(9.0));
  // C[i] = sum(A[i, k]) - max(A[i, k]), k in 0..4
  Var i2 = Variable::make("i"), k = Variable::make("k"), k2 = Variable::make("k");
  Expr two = Reduce::make(ReduceKind::Sum, Load::make(A, {i2, k}), {reduce_axis(k, 0, 4)}) -
             Reduce::make(ReduceKind::Max, Load::make(A, {i2, k2}), {reduce_axis(k2, 0, 4)});
  Stage c = stage("C", Float(32), {i2}, {4}, two);
  // An intermediate stage read by an output: H[i, j] = A[i, j] + A[i, j + 1] (j < 3), V = H[i, j] + H[i + 1, j].
  Var hi = Variable::make("i"), hj = Variable::make("j"), vi = Variable::make("i"), vj = Variable::make("j");
  Stage h = stage("H", Float(32), {hi, hj}, {4, 3}, Load::make(A, {hi, hj}) + Load::make(A, {hi, Expr(hj) + 1}),
                  BufferRole::Intermediate);
  Stage v = stage("V", Float(32), {vi, vj}, {3, 3}, Load::make(h.buffer, {vi, vj}) + Load::make(h.buffer, {Expr(vi) + 1, vj}));
  OpDef op = make_op("nested", {A}, {b, c, h, v});
  std::vector<double> values;
  for (int x = 0; x < 16; ++x) values.push_back(x);  // A[i, j] = 4 i + j
  Tensor a = tensor(Float(32), {4, 4}, values);
  ReferenceInterpreter ref(op, {&a});
  CHECK(ref.evaluate_point("B", {0, 0}).f == 5);
  CHECK(ref.evaluate_point("B", {0, 1}).f == 6);
  CHECK(ref.evaluate_point("B", {1, 0}).f == 9);
  CHECK(ref.evaluate_point("B", {1, 1}).f == 10);
  CHECK(ref.evaluate_point("C", {0}).f == 6 - 3);
  CHECK(ref.evaluate_point("C", {3}).f == (12 + 13 + 14 + 15) - 15);
  // V[1, 2] = A[1,2] + A[1,3] + A[2,2] + A[2,3] = 6 + 7 + 10 + 11
  CHECK(ref.evaluate_point("V", {1, 2}).f == 34);
  CHECK(ref.evaluate_point("H", {3, 0}).f == 12 + 13);
}

TEST_CASE("floats round at stage boundaries and casts only") {
  Buffer A = input("A", Float(32), {1});
  Var i = Variable::make("i");
  Expr a = Load::make(A, {i});
  // T = A / 3 (f32 stage), U = T * 3: computed in double inside a stage, rounded when stored.
  Stage t = stage("T", Float(32), {i}, {1}, a / make_float(3.0), BufferRole::Intermediate);
  Var i2 = Variable::make("i");
  Stage u = stage("U", Float(64), {i2}, {1}, Cast::make(Float(64), Load::make(t.buffer, {i2})) * make_float(3.0, Float(64)));
  Var i3 = Variable::make("i");
  Stage h = stage("H", Float(16), {i3}, {1}, Cast::make(Float(16), Load::make(A, {i3})));
  Var i4 = Variable::make("i");
  Stage w = stage("W", Float(64), {i4}, {1}, Cast::make(Float(64), Load::make(A, {i4}) / make_float(3.0)));
  OpDef op = make_op("rounding", {A}, {t, u, h, w});
  Tensor x = tensor(Float(32), {1}, {0.1});
  ReferenceInterpreter ref(op, {&x});
  double a0 = double(float(0.1));
  double t0 = double(float(a0 / double(float(3.0))));
  CHECK(ref.evaluate_point("T", {0}).f == t0);
  CHECK(ref.evaluate_point("U", {0}).f == t0 * 3.0);
  CHECK(ref.evaluate_point("H", {0}).f == double(half_to_float(float_to_half(float(a0)))));
  CHECK(ref.evaluate_point("H", {0}).f == 0.0999755859375);
  // Inside one stage the f32 division is not rounded before the cast to f64.
  CHECK(ref.evaluate_point("W", {0}).f == a0 / 3.0);
}

TEST_CASE("bf16: conversions round to nearest even and keep NaN; the reference rounds at stores and casts") {
  auto bits_of = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  auto from_bits = [](uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  CHECK(float_to_bfloat(1.0f) == 0x3f80);
  CHECK(float_to_bfloat(1.0f + 0x1p-8f) == 0x3f80);      // a tie: to the even 1.0
  CHECK(float_to_bfloat(1.0f + 3 * 0x1p-8f) == 0x3f82);  // a tie: to the even 1 + 2^-6
  CHECK(float_to_bfloat(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81);  // above the tie: up
  CHECK(float_to_bfloat(-257.0f) == 0xc380);             // -257 is a tie between -256 and -258
  CHECK(float_to_bfloat(3.0e38f) == 0x7f62);
  CHECK(float_to_bfloat(std::numeric_limits<float>::max()) == 0x7f80);  // rounds past the largest: inf
  CHECK(float_to_bfloat(-std::numeric_limits<float>::infinity()) == 0xff80);
  CHECK(float_to_bfloat(from_bits(0x00080000u)) == 0x0008);  // a subnormal is kept
  CHECK(float_to_bfloat(from_bits(0x7f800001u)) == 0x7fc0);  // a signalling NaN becomes a quiet NaN, not inf
  CHECK(float_to_bfloat(from_bits(0xffffffffu)) == 0xffff);  // a NaN keeps its sign
  CHECK(std::isnan(bfloat_to_float(float_to_bfloat(std::nanf("")))));
  for (uint32_t b = 0; b < 0x10000u; ++b) {  // every bf16 value survives f32 and back
    float f = bfloat_to_float(uint16_t(b));
    CHECK(bits_of(f) == b << 16);
    if (!std::isnan(f)) CHECK(float_to_bfloat(f) == b);
  }

  // The reference computes a stage in double and rounds its bf16 value where it is stored and at
  // casts (ReferenceInterpreter.h), as for f16; compiled code rounds each operation, within the
  // check's bf16 tolerance of it.
  Buffer A = input("A", BFloat16(), {1});
  Var i = Variable::make("i");
  Expr a = Load::make(A, {i});
  Stage p = stage("P", BFloat16(), {i}, {1}, a * a - make_float(1.0, BFloat16()));
  Var i2 = Variable::make("i");
  Stage q = stage("Q", Float(32), {i2}, {1}, Cast::make(Float(32), Cast::make(BFloat16(), Cast::make(Float(32), Load::make(A, {i2})) * make_float(3.0f, Float(32)))));
  OpDef op = make_op("bf16_rounding", {A}, {p, q});
  Tensor x = tensor(BFloat16(), {1}, {1.0 + 3 * 0x1p-7});  // exactly representable
  CHECK(x.get_double(0) == 1.0 + 3 * 0x1p-7);
  ReferenceInterpreter ref(op, {&x});
  // a * a - 1 = 6 * 2^-7 + 9 * 2^-14 exactly, stored rounded to bf16 (step 2^-12 there): 2.25 steps
  // above 6 * 2^-7 become 2 (a * a rounded first, as compiled code does, would leave 6 * 2^-7).
  CHECK(ref.evaluate_point("P", {0}).f == 6 * 0x1p-7 + 2 * 0x1p-12);
  // 3 * (1 + 3 * 2^-7) = 3 + 9 * 2^-7 lies between bf16's 3 + 4 * 2^-6 and 3 + 5 * 2^-6 (step 2^-6
  // above 2), a tie: to the even mantissa, 3 + 4 * 2^-6.
  CHECK(ref.evaluate_point("Q", {0}).f == 3.0 + 4 * 0x1p-6);
}

TEST_CASE("select reads only the chosen branch; math functions") {
  Buffer A = input("A", Float(32), {4});
  Var i = Variable::make("i");
  Expr guarded = Select::make(Expr(i) >= 1, Load::make(A, {Expr(i) - 1}), make_float(0.0));
  Var i2 = Variable::make("i");
  Expr x = Load::make(A, {i2});
  auto math = [&](const char* name, std::vector<Expr> args) { return Call::make(Float(32), name, args, CallKind::Math); };
  Stage s = stage("S", Float(32), {i}, {4}, guarded);
  Stage m = stage("M", Float(64), {i2}, {4},
                  Cast::make(Float(64), math("sigmoid", {x}) + math("pow", {math("abs", {x}), make_float(1.5)}) +
                                            math("floor", {x}) + math("ceil", {x}) + math("tanh", {x}) +
                                            math("exp", {x}) + math("sqrt", {math("abs", {x})}) +
                                            math("log", {math("abs", {x}) + make_float(1.0)})));
  OpDef op = make_op("select_math", {A}, {s, m});
  Tensor a = tensor(Float(32), {4}, {0.5, -1.25, 2, -0.75});
  ReferenceInterpreter ref(op, {&a});
  CHECK(ref.evaluate_point("S", {0}).f == 0);
  CHECK(ref.evaluate_point("S", {2}).f == -1.25);
  for (int p = 0; p < 4; ++p) {
    double v = a.get_double(p);
    double want = 1 / (1 + std::exp(-v)) + std::pow(std::fabs(v), double(float(1.5))) + std::floor(v) + std::ceil(v) +
                  std::tanh(v) + std::exp(v) + std::sqrt(std::fabs(v)) + std::log(std::fabs(v) + 1);
    CHECK(ref.evaluate_point("M", {p}).f == doctest::Approx(want).epsilon(1e-12));
  }
}

TEST_CASE("erf, log1p, atan2, fmod, round, isnan ...: values in double and their condition magnitudes") {
  Buffer A = input("A", Float(64), {4}), B = input("B", Float(64), {4});
  Var i = Variable::make("i");
  Expr x = Load::make(A, {i}), y = Load::make(B, {i});
  auto math = [&](const char* name, std::vector<Expr> args) { return Call::make(Float(64), name, args, CallKind::Math); };
  struct Case {
    const char* name;
    Expr body;
    std::function<double(double, double)> value, magnitude;  // of a = A[i] (magnitude |a|), b = B[i]
  };
  const double k2_sqrt_pi = 1.1283791670955126;
  std::vector<Case> cases = {
      {"erf", math("erf", {x}), [](double a, double) { return std::erf(a); },
       [&](double a, double) { return std::fabs(std::erf(a)) + k2_sqrt_pi * std::exp(-a * a) * std::fabs(a); }},
      {"erfc", math("erfc", {x}), [](double a, double) { return std::erfc(a); },
       [&](double a, double) { return std::fabs(std::erfc(a)) + k2_sqrt_pi * std::exp(-a * a) * std::fabs(a); }},
      {"log1p", math("log1p", {x}), [](double a, double) { return std::log1p(a); },
       [](double a, double) { return std::fabs(std::log1p(a)) + std::fabs(a) / std::fabs(1 + a); }},
      {"expm1", math("expm1", {x}), [](double a, double) { return std::expm1(a); },
       [](double a, double) { return std::fabs(std::expm1(a)) + std::exp(a) * std::fabs(a); }},
      {"sin", math("sin", {x}), [](double a, double) { return std::sin(a); },
       [](double a, double) { return std::fabs(std::sin(a)) + std::fabs(std::cos(a) * a); }},
      {"rsqrt", math("rsqrt", {math("abs", {x})}), [](double a, double) { return 1 / std::sqrt(std::fabs(a)); },
       [](double a, double) { return 1.5 / std::sqrt(std::fabs(a)); }},  // |r| + |r| |a| / (2 |a|)
      {"atan2", math("atan2", {x, y}), [](double a, double b) { return std::atan2(a, b); },
       [](double a, double b) { return std::fabs(std::atan2(a, b)) + 2 * std::fabs(a * b) / (a * a + b * b); }},
      {"fmod", math("fmod", {x, y}), [](double a, double b) { return std::fmod(a, b); },
       [](double a, double b) { return std::fabs(std::fmod(a, b)) + std::fabs(a) + std::fabs(std::trunc(a / b) * b); }},
      {"round", math("round", {x}), [](double a, double) { return std::round(a); },
       [](double a, double) { return std::fabs(std::round(a)); }},  // piecewise constant: its own rounding only
  };
  std::vector<Stage> stages;
  for (const Case& c : cases) stages.push_back(stage(std::string("S_") + c.name, Float(64), {i}, {4}, c.body));
  stages.push_back(stage("N", Bool(), {i}, {4}, Call::make(Bool(), "isnan", {math("log", {x})}, CallKind::Math)));
  stages.push_back(stage("I", Bool(), {i}, {4}, Call::make(Bool(), "isinf", {math("exp2", {y})}, CallKind::Math)));
  OpDef op = make_op("math_magnitudes", {A, B}, stages);
  Tensor a = tensor(Float(64), {4}, {0.5, -0.75, 7.25, -0.125});
  Tensor b = tensor(Float(64), {4}, {3.0, 0.75, -2.0, 2000.0});
  ReferenceInterpreter ref(op, {&a, &b});
  for (const Case& c : cases) {
    for (int p = 0; p < 4; ++p) {
      CAPTURE(c.name);
      CAPTURE(p);
      double av = a.get_double(p), bv = b.get_double(p), m = 0;
      CHECK(ref.evaluate_point(std::string("S_") + c.name, {p}, &m).f == c.value(av, bv));
      CHECK(m == doctest::Approx(c.magnitude(av, bv)).epsilon(1e-12));
    }
  }
  for (int p = 0; p < 4; ++p) {
    CHECK(ref.evaluate_point("N", {p}).i == (a.get_double(p) < 0));
    CHECK(ref.evaluate_point("I", {p}).i == (p == 3));  // 2^2000 overflows
  }
}

TEST_CASE("an out-of-bounds read is an InterpError naming the tensor, not a crash") {
  Buffer A = input("A", Float(32), {4});
  Var i = Variable::make("i");
  OpDef op = make_op("shift", {A}, {stage("B", Float(32), {i}, {4}, Load::make(A, {Expr(i) + 1}))});
  Tensor a(Float(32), {4});
  ReferenceInterpreter ref(op, {&a});
  CHECK(ref.evaluate_point("B", {2}).f == 0);
  std::string message;
  try {
    ref.evaluate_point("B", {3});
  } catch (const InterpError& e) {
    message = e.what();
  }
  CHECK(message == "out-of-bounds read of 'A' at [4]: index 4 in dimension 0 is outside [0, 4) while evaluating 'B' at [3]");
  CHECK_THROWS_WITH_AS(ref.evaluate_point("B", {3}), message.c_str(), InterpError);  // the same error again
  CHECK(ref.evaluate_point("B", {1}).f == 0);                                         // and still usable
  CHECK_THROWS_AS(ref.evaluate_point("B", {4}), InterpError);    // outside B itself
  CHECK_THROWS_AS(ref.evaluate_point("Z", {0}), InterpError);    // no such tensor
  Tensor wrong(Float(32), {5});
  CHECK_THROWS_AS(ReferenceInterpreter(op, {&wrong}), InterpError);
}

TEST_CASE("integer division by zero is reported") {
  Buffer A = input("A", Int(32), {2});
  Var i = Variable::make("i");
  OpDef op = make_op("div0", {A}, {stage("B", Int(32), {i}, {2}, make_int(10, Int(32)) / Load::make(A, {i}))});
  Tensor a = tensor(Int(32), {2}, {5, 0});
  ReferenceInterpreter ref(op, {&a});
  CHECK(ref.evaluate_point("B", {0}).i == 2);
  CHECK_THROWS_AS(ref.evaluate_point("B", {1}), InterpError);
}
