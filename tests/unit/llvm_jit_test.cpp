// Tests of the LLVM backend on x86 through the in-process JIT: lowered ops built by hand, run on
// known inputs, compared with values computed here.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "backends/interp/Half.h"
#include "backends/llvm/LLVMBackend.h"
#include "ir/Intrinsics.h"
#include "ir/ConstEval.h"
#include "ir/IRParser.h"
#include "runtime/texrt.h"
#include "tests/unit/llvm_test_ops.h"

using namespace texc;
using namespace texc::llvm_test;

namespace {

CpuTargetOptions x86() { return CpuTargetOptions{"x86", "", "", 3}; }

std::unique_ptr<JitModule> jit(const LoweredFunc& f, const std::map<std::string, void*>& symbols = {}) {
  return JitModule::create({f}, x86(), symbols);
}

template <typename T>
std::vector<T> iota_values(size_t n, T start, T step) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(start + T(i) * step);
  return v;
}

/// `bytes` of readable memory followed immediately by an inaccessible page: reading past the end faults.
class GuardedArray {
 public:
  explicit GuardedArray(size_t bytes) {
    page_ = size_t(sysconf(_SC_PAGESIZE));
    data_pages_ = (bytes + page_ - 1) / page_;
    base_ = static_cast<char*>(mmap(nullptr, (data_pages_ + 1) * page_, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(base_ != MAP_FAILED);
    REQUIRE(mprotect(base_ + data_pages_ * page_, page_, PROT_NONE) == 0);
    data_ = base_ + data_pages_ * page_ - bytes;
  }
  ~GuardedArray() { munmap(base_, (data_pages_ + 1) * page_); }
  void* data() { return data_; }

 private:
  size_t page_, data_pages_;
  char* base_;
  char* data_;
};

}  // namespace

TEST_CASE("elementwise add over f32") {
  const int64_t n = 1000;
  auto m = jit(elementwise_add(n));
  auto a = iota_values<float>(n, 0.5f, 1.0f), b = iota_values<float>(n, -3.0f, 0.25f);
  std::vector<float> c(n, 0);
  m->call("add", {a.data(), b.data(), c.data()});
  for (int64_t i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  CHECK(m->lookup("add") != nullptr);
  CHECK(m->lookup("no_such_op") == nullptr);

  // The plain C entry point works too (user pointers only need element alignment).
  auto fn = reinterpret_cast<void (*)(const float*, const float*, float*)>(m->lookup("add"));
  std::vector<float> unaligned(n + 1, 0);
  fn(a.data(), b.data(), unaligned.data() + 1);
  for (int64_t i = 0; i < n; ++i) REQUIRE(unaligned[i + 1] == a[i] + b[i]);
}

TEST_CASE("matmul with a parallel outer loop") {
  const int64_t M = 37, N = 29, K = 19;
  auto m = jit(matmul(M, N, K, true));
  auto a = iota_values<float>(M * K, -1.0f, 0.01f), b = iota_values<float>(K * N, 2.0f, -0.03f);
  std::vector<float> c(M * N, 123.0f);
  texrt_set_num_threads(4);
  m->call("matmul", {a.data(), b.data(), c.data()});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double expected = 0;
      for (int64_t k = 0; k < K; ++k) expected += double(a[i * K + k]) * double(b[k * N + j]);
      REQUIRE(c[i * N + j] == doctest::Approx(expected).epsilon(1e-5));
    }
  texrt_set_num_threads(0);
}

TEST_CASE("vectorized loop with ramps, broadcasts and a scalar tail") {
  for (int64_t n : {8, 37, 64, 5}) {
    auto m = jit(vectorized_axpy(n));
    float alpha = 1.5f;
    auto x = iota_values<float>(n, 1.0f, 1.0f), y0 = iota_values<float>(n, 100.0f, -2.0f);
    std::vector<float> y(n, 0);
    m->call("axpy", {&alpha, x.data(), y0.data(), y.data()});
    for (int64_t i = 0; i < n; ++i) REQUIRE(y[i] == doctest::Approx(alpha * x[i] + y0[i]));
  }
  // The vector nodes become LLVM vector types.
  std::string ir = emit_llvm_ir_unoptimized({vectorized_axpy(37)}, x86());
  CHECK(ir.find("<8 x float>") != std::string::npos);
  CHECK(ir.find("noalias") != std::string::npos);
  CHECK(ir.find("readonly") != std::string::npos);
  CHECK(emit_llvm_ir({vectorized_axpy(37)}, x86()).find("<8 x float>") != std::string::npos);
}

template <typename T>
void check_floor_div_mod(Type t, int lanes) {
  CAPTURE(t.str());
  CAPTURE(lanes);
  const int64_t n = 16;
  std::string name = "divmod_" + t.str() + "x" + std::to_string(lanes);
  auto m = jit(floor_div_mod(t, n, lanes, name));
  T lo = std::numeric_limits<T>::min();
  std::vector<T> a = {7, -7, 7, -7, 0, -1, 13, -13, 100, -100, lo, lo, 5, -128, 1, -9};
  std::vector<T> b = {2, 2, -2, -2, 3, 3, 0, 0, 7, -7, -1, 3, 5, -1, -100, 4};
  std::vector<std::vector<T>> outs(7, std::vector<T>(n, T(99)));
  std::vector<void*> args = {a.data(), b.data()};
  for (auto& o : outs) args.push_back(o.data());
  m->call(name, args);
  auto wrap = [](int64_t v) { return T(v); };  // two's complement wrap to the type
  for (int64_t i = 0; i < n; ++i) {
    CAPTURE(i);
    CAPTURE(int64_t(a[i]));
    CAPTURE(int64_t(b[i]));
    int64_t expected_q = b[i] == 0 ? 0 : (b[i] == -1 ? int64_t(wrap(int64_t(uint64_t(0) - uint64_t(int64_t(a[i]))))) : floor_div(a[i], b[i]));
    int64_t expected_r = (b[i] == 0 || b[i] == -1) ? 0 : floor_mod(a[i], b[i]);
    CHECK(int64_t(outs[0][i]) == int64_t(wrap(expected_q)));
    CHECK(int64_t(outs[1][i]) == expected_r);
    CHECK(int64_t(outs[2][i]) == floor_div(a[i], 4));
    CHECK(int64_t(outs[3][i]) == floor_mod(a[i], 4));
    CHECK(int64_t(outs[4][i]) == int64_t(wrap(floor_div(a[i], -3))));
    CHECK(int64_t(outs[5][i]) == floor_mod(a[i], -3));
    CHECK(int64_t(outs[6][i]) == floor_div(a[i], 7));
  }
}

TEST_CASE("floor division and modulo of negative integers") {
  for (int lanes : {1, 4, 8}) {
    check_floor_div_mod<int8_t>(Int(8), lanes);
    check_floor_div_mod<int32_t>(Int(32), lanes);
    check_floor_div_mod<int64_t>(Int(64), lanes);
  }
}

TEST_CASE("select guards an out-of-range read") {
  const int64_t n = 64;
  std::vector<float> a = iota_values<float>(n, 0.0f, 1.0f);
  std::vector<int64_t> idx(n);
  for (int64_t i = 0; i < n; ++i) idx[i] = i % 3 == 0 ? (int64_t(1) << 40) + i : (i * 7) % n;  // 2^40: unmapped
  for (int lanes : {1, 8}) {
    CAPTURE(lanes);
    std::string name = "gather" + std::to_string(lanes);
    auto m = jit(guarded_gather(n, lanes, name));
    std::vector<float> out(n, 0);
    m->call(name, {a.data(), idx.data(), out.data()});
    for (int64_t i = 0; i < n; ++i) REQUIRE(out[i] == (idx[i] < n ? a[idx[i]] : -1.0f));
  }

  // A contiguous vector read that would run into a guard page without its mask.
  const int64_t valid = 13, padded = 16;
  GuardedArray guarded(valid * sizeof(float));
  float* ga = static_cast<float*>(guarded.data());
  for (int64_t i = 0; i < valid; ++i) ga[i] = float(i) + 0.5f;
  auto m = jit(guarded_contiguous(padded, valid, "masked"));
  std::vector<float> out(padded, -7);
  m->call("masked", {ga, out.data()});
  for (int64_t i = 0; i < padded; ++i) REQUIRE(out[i] == (i < valid ? ga[i] : 0.0f));
}

TEST_CASE("a strided vector load is a masked load of its span and a shuffle, reading no discarded lane") {
  // Out[l] = select(l < 15, A[2l + 1], 0) for 16 lanes, A's 31 elements ending at a guard page: lane 15
  // (A[31]) and the span's last element are past it. The index is marked as VectorizeLoops marks it.
  const int64_t valid = 31, lanes = 16;
  Buffer a = input("A", Float(32), valid), out = output("Out", Float(32), lanes);
  Expr as_written = Ramp::make(i64(1), i64(2), int(lanes));
  Expr clamped = max(min(as_written, Broadcast::make(i64(valid - 1), int(lanes))), Broadcast::make(i64(0), int(lanes)));
  Expr index = make_intrinsic_call(Intrinsic::LaneClamp, clamped->type, {clamped, as_written});
  Expr lane = ramp(i64(0), int(lanes));
  Expr body = Select::make(lane < Broadcast::make(i64(15), int(lanes)), load(a, index), make_const(Float(32, int(lanes)), 0.0));
  LoweredFunc f{"strided", {a, out}, store(out, lane, body), {{valid}, {lanes}}};
  GuardedArray guarded(valid * sizeof(float));
  float* ga = static_cast<float*>(guarded.data());
  for (int64_t i = 0; i < valid; ++i) ga[i] = float(i) + 0.5f;
  auto m = jit(f);
  std::vector<float> o(lanes, -7);
  m->call("strided", {ga, o.data()});
  for (int64_t l = 0; l < lanes; ++l) REQUIRE(o[l] == (l < 15 ? ga[2 * l + 1] : 0.0f));

  std::string ir = emit_llvm_ir_unoptimized({f}, CpuTargetOptions{"x86", "skylake-avx512", "", 3});
  CHECK(ir.find("masked.gather") == std::string::npos);
  CHECK(ir.find("@llvm.masked.load.v32f32") != std::string::npos);
  // Without AVX-512's masked moves: a gather, as before.
  CHECK(emit_llvm_ir_unoptimized({f}, CpuTargetOptions{"x86", "haswell", "", 3}).find("masked.gather") != std::string::npos);
}

/// How many times `what` occurs in `text`.
static size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("an accumulator tile of 7 lanes in a global intermediate is read back with plain loads") {
  // allocate T: f32[7] { T[0..7] = A[0..7];  for k in 1..3: T[0..7] = T[0..7] + A[7k..7k+7];  Out = T }
  // With AVX-512 the 7-lane loads of the input A are masked loads of 8 lanes; the 7-lane loads of
  // T, which the op stores with 7 lanes, are plain (a masked load of a vector just stored in pieces
  // defeats store forwarding and SROA: depthwise_conv2d's 7-column rows ran 19x slower).
  const int lanes = 7;
  Buffer a = input("A", Float(32), 3 * lanes), out = output("Out", Float(32), lanes);
  Buffer t = BufferNode::make("T", Float(32), {i64(lanes)}, MemScope::Global, BufferRole::Intermediate);
  Var k = Variable::make("k");
  Expr tile = ramp(i64(0), lanes);
  Stmt init = store(t, tile, load(a, tile));
  Stmt acc = loop(k, 1, 2, store(t, tile, load(t, tile) + load(a, ramp(k * i64(lanes), lanes))));
  Stmt body = Allocate::make(t, Seq::make({init, acc, store(out, tile, load(t, tile))}));
  LoweredFunc f{"tile7", {a, out}, body, {{3 * lanes}, {lanes}}};
  auto m = jit(f);
  auto av = iota_values<float>(3 * lanes, 1.0f, 1.0f);
  std::vector<float> o(lanes, 0);
  m->call("tile7", {av.data(), o.data()});
  for (int l = 0; l < lanes; ++l) REQUIRE(o[l] == av[l] + av[l + lanes] + av[l + 2 * lanes]);
  std::string ir = emit_llvm_ir_unoptimized({f}, CpuTargetOptions{"x86", "skylake-avx512", "", 3});
  CHECK(occurrences(ir, "= call contract <8 x float> @llvm.masked.load.v8f32") == 2);  // A's two loads
  CHECK(occurrences(ir, "= load <7 x float>") == 2);                                    // T's two
  // The 7-lane store to the output Out is one masked store of 8 lanes; T's stay plain.
  CHECK(occurrences(ir, "call void @llvm.masked.store.v8f32") == 1);
  CHECK(occurrences(ir, "store <7 x float>") == 2);
  // Without AVX-512: no masked moves at all.
  std::string haswell = emit_llvm_ir_unoptimized({f}, CpuTargetOptions{"x86", "haswell", "", 3});
  CHECK(haswell.find("@llvm.masked.") == std::string::npos);
}

TEST_CASE("an output that is itself the accumulator tile keeps plain 7-lane stores") {
  // Out[0..7] = A[0..7];  for k in 1..3: Out[0..7] = Out[0..7] + A[7k..7k+7]   (a depthwise_conv2d
  // without epilogue accumulates in its output). The output is read back with 7 lanes, so its
  // stores stay plain, as its loads do: LLVM then keeps the tile in registers (masked stores made
  // workload D5, 28x28x256 depthwise, 7x slower). A's loads are still masked.
  const int lanes = 7;
  Buffer a = input("A", Float(32), 3 * lanes), out = output("Out", Float(32), lanes);
  Var k = Variable::make("k");
  Expr tile = ramp(i64(0), lanes);
  Stmt body = Seq::make({store(out, tile, load(a, tile)),
                         loop(k, 1, 2, store(out, tile, load(out, tile) + load(a, ramp(k * i64(lanes), lanes))))});
  LoweredFunc f{"acc7", {a, out}, body, {{3 * lanes}, {lanes}}};
  auto m = jit(f);
  auto av = iota_values<float>(3 * lanes, 1.0f, 1.0f);
  std::vector<float> o(lanes, 0);
  m->call("acc7", {av.data(), o.data()});
  for (int l = 0; l < lanes; ++l) REQUIRE(o[l] == av[l] + av[l + lanes] + av[l + 2 * lanes]);
  std::string ir = emit_llvm_ir_unoptimized({f}, CpuTargetOptions{"x86", "skylake-avx512", "", 3});
  CHECK(occurrences(ir, "= call contract <8 x float> @llvm.masked.load.v8f32") == 2);  // A's two loads
  CHECK(occurrences(ir, "@llvm.masked.store") == 0);
  CHECK(occurrences(ir, "store <7 x float>") == 2);
}

TEST_CASE("local and heap allocations") {
  // for i: allocate T: f32[8] local { for k: T[k] = A[i] * k;  Out[i] = T[3] + T[7] }
  const int64_t n = 10;
  Buffer a = input("A", Float(32), n), out = output("Out", Float(32), n);
  Buffer t = BufferNode::make("T", Float(32), {i64(8)}, MemScope::Local);
  Var i = Variable::make("i"), k = Variable::make("k");
  Stmt fill = loop(k, 0, 8, store(t, k, load(a, i) * Cast::make(Float(32), k)));
  Stmt body = Allocate::make(t, Seq::make({fill, store(out, i, load(t, i64(3)) + load(t, i64(7)))}));
  LoweredFunc f{"local_alloc", {a, out}, loop(i, 0, n, body), {{n}, {n}}};
  auto m = jit(f);
  auto av = iota_values<float>(n, 1.0f, 1.0f);
  std::vector<float> o(n, 0);
  m->call("local_alloc", {av.data(), o.data()});
  for (int64_t j = 0; j < n; ++j) REQUIRE(o[j] == av[j] * 10.0f);
  CHECK(emit_llvm_ir_unoptimized({f}, x86()).find("alloca [32 x i8], align 64") != std::string::npos);

  // A size known only at run time (let m = SIZE[0]) and a large global buffer go to texrt_alloc.
  Buffer size = input("SIZE", Int(32), 1), sum = output("Sum", Int(64), 2);
  Var len = Variable::make("len"), j = Variable::make("j");
  Buffer dyn = BufferNode::make("D", Int(64), {Expr(len)});
  Buffer big = BufferNode::make("Big", Int(64), {i64(100000)});
  Stmt dyn_fill = For::make(j, i64(0), Expr(len), ForKind::Serial, store(dyn, j, Expr(j) * Expr(j)));
  Stmt dyn_sum = For::make(j, i64(0), Expr(len), ForKind::Serial, store(sum, i64(0), load(sum, i64(0)) + load(dyn, j)));
  Stmt big_fill = loop(j, 0, 100000, store(big, j, Expr(j)));
  Stmt big_sum = loop(j, 0, 100000, store(sum, i64(1), load(sum, i64(1)) + load(big, j)));
  Stmt dyn_body = Seq::make({store(sum, i64(0), i64(0)), store(sum, i64(1), i64(0)),
                             Allocate::make(dyn, Seq::make({dyn_fill, dyn_sum})), Allocate::make(big, Seq::make({big_fill, big_sum}))});
  LoweredFunc g{"heap_alloc", {size, sum}, LetStmt::make(len, Cast::make(Int(64), load(size, i64(0))), dyn_body), {{1}, {2}}};
  auto mg = jit(g);
  int32_t len_value = 1000;
  int64_t sums[2] = {0, 0};
  mg->call("heap_alloc", {&len_value, sums});
  CHECK(sums[0] == int64_t(999) * 1000 * 1999 / 6);
  CHECK(sums[1] == int64_t(99999) * 100000 / 2);
  std::string ir = emit_llvm_ir_unoptimized({g}, x86());
  CHECK(ir.find("call ptr @texrt_alloc") != std::string::npos);
  CHECK(ir.find("call void @texrt_free") != std::string::npos);
}

TEST_CASE("casts") {
  // Out_k[i] = cast_k(A[i]) for a few conversions, scalar and 4-lane.
  const int64_t n = 8;
  Buffer a = input("A", Float(32), n), s = input("S", Int(8), n), u = input("U", UInt(8), n);
  Buffer to_i32 = output("to_i32", Int(32), n), to_i8 = output("to_i8", Int(8), n), to_u8 = output("to_u8", UInt(8), n);
  Buffer s_to_f = output("s_to_f", Float(32), n), u_to_i = output("u_to_i", Int(32), n), bool_f = output("bool_f", Float(32), n);
  Buffer to_f64 = output("to_f64", Float(64), n), f16_rt = output("f16_rt", Float(32), n), flags = output("flags", Bool(), n);
  for (int lanes : {1, 4}) {
    CAPTURE(lanes);
    Var i = Variable::make("i");
    Expr idx = lanes == 1 ? Expr(i) : ramp(Expr(i) * lanes, lanes);
    auto cast = [&](Type t, Expr e) { return Cast::make(t.with_lanes(lanes), e); };
    Expr av = load(a, idx);
    std::vector<Stmt> stores = {
        store(to_i32, idx, cast(Int(32), av)),
        store(to_i8, idx, cast(Int(8), av)),
        store(to_u8, idx, cast(UInt(8), av)),
        store(s_to_f, idx, cast(Float(32), load(s, idx))),
        store(u_to_i, idx, cast(Int(32), load(u, idx))),
        store(bool_f, idx, cast(Float(32), cast(Bool(), load(s, idx)))),
        store(to_f64, idx, cast(Float(64), av)),
        store(f16_rt, idx, cast(Float(32), cast(Float(16), av))),
        store(flags, idx, av > make_const(Float(32, lanes), 0.0)),
    };
    std::string name = "casts" + std::to_string(lanes);
    LoweredFunc f{name, {a, s, u, to_i32, to_i8, to_u8, s_to_f, u_to_i, bool_f, to_f64, f16_rt, flags},
                  loop(i, 0, n / lanes, Seq::make(stores)), {}};
    auto m = jit(f);
    std::vector<float> av_data = {-2.7f, 2.7f, 300.0f, -1.0f, std::nanf(""), 1.5f, 0.0f, 1e20f};
    std::vector<int8_t> sv = {-5, 0, 5, -128, 127, 1, -1, 0};
    std::vector<uint8_t> uv = {250, 0, 5, 128, 255, 1, 2, 3};
    std::vector<int32_t> o_i32(n);
    std::vector<int8_t> o_i8(n);
    std::vector<uint8_t> o_u8(n), o_flags(n, 7);
    std::vector<float> o_sf(n), o_bf(n), o_f16(n);
    std::vector<int32_t> o_ui(n);
    std::vector<double> o_f64(n);
    m->call(name, {av_data.data(), sv.data(), uv.data(), o_i32.data(), o_i8.data(), o_u8.data(), o_sf.data(),
                   o_ui.data(), o_bf.data(), o_f64.data(), o_f16.data(), o_flags.data()});
    // float -> int truncates toward zero, saturates to 64 bits (NaN -> 0), then wraps (300 -> 44 in i8).
    std::vector<int64_t> truncated = {-2, 2, 300, -1, 0, 1, 0, std::numeric_limits<int64_t>::max()};
    for (int64_t j = 0; j < n; ++j) {
      CAPTURE(j);
      CHECK(o_i32[j] == int32_t(truncated[j]));
      CHECK(o_i8[j] == int8_t(truncated[j]));
      CHECK(o_u8[j] == uint8_t(truncated[j]));
      CHECK(o_sf[j] == float(sv[j]));
      CHECK(o_ui[j] == int32_t(uv[j]));
      CHECK(o_bf[j] == (sv[j] != 0 ? 1.0f : 0.0f));
      if (std::isnan(av_data[j])) {
        CHECK(std::isnan(o_f64[j]));
      } else {
        CHECK(o_f64[j] == double(av_data[j]));
      }
      CHECK(o_flags[j] == (av_data[j] > 0 ? 1 : 0));
    }
    CHECK(o_f16[0] == doctest::Approx(-2.7).epsilon(1e-3));
    CHECK(o_f16[5] == 1.5f);
    CHECK(std::isinf(o_f16[7]));  // 1e20 overflows f16
  }
}

TEST_CASE("math functions on vectors and scalars") {
  const int64_t n = 64;
  std::vector<float> a(n);
  for (int64_t i = 0; i < n; ++i) a[i] = -12.0f + 24.0f * float(i) / float(n - 1);
  // Special values in the last lanes.
  a[56] = 100.0f;
  a[57] = -200.0f;
  a[58] = std::nanf("");
  a[59] = 1e-5f;
  a[60] = -1e-5f;
  a[61] = 0.3f;
  a[62] = 88.0f;
  a[63] = -95.0f;
  auto reference = [](const std::string& f, double x) {
    if (f == "exp") return std::exp(x);
    if (f == "log") return std::log(x);
    if (f == "sqrt") return std::sqrt(x);
    if (f == "tanh") return std::tanh(x);
    if (f == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (f == "abs") return std::fabs(x);
    if (f == "floor") return std::floor(x);
    if (f == "ceil") return std::ceil(x);
    return std::pow(x, 1.5);
  };
  for (const std::string f : {"exp", "log", "sqrt", "tanh", "sigmoid", "abs", "floor", "ceil", "pow"}) {
    for (int lanes : {1, 8}) {
      CAPTURE(f);
      CAPTURE(lanes);
      std::string name = f + "_x" + std::to_string(lanes);
      auto m = jit(math_op(f, Float(32), n, lanes, name));
      std::vector<float> out(n, 0);
      m->call(name, {a.data(), out.data()});
      for (int64_t i = 0; i < n; ++i) {
        CAPTURE(a[i]);
        double expected = double(float(reference(f, double(a[i]))));
        if (std::isnan(expected)) {
          CHECK(std::isnan(out[i]));
        } else if (std::isinf(expected) || expected == 0) {
          CHECK(out[i] == expected);
        } else {
          CHECK(std::fabs(out[i] - expected) <= 4e-7 * std::fabs(expected) + 1e-37);
        }
      }
    }
  }
  // f64 scalar and vector go through libm.
  std::vector<double> d = {-3.0, -0.5, 0.0, 0.25, 1.0, 2.0, 7.5, 20.0};
  for (int lanes : {1, 4}) {
    std::string name = "tanh64_x" + std::to_string(lanes);
    auto m = jit(math_op("tanh", Float(64), 8, lanes, name));
    std::vector<double> out(8);
    m->call(name, {d.data(), out.data()});
    for (int i = 0; i < 8; ++i) CHECK(out[i] == doctest::Approx(std::tanh(d[i])).epsilon(1e-15));
  }
  // abs on integers, min/max on floats with NaN.
  std::string ir = emit_llvm_ir_unoptimized({math_op("exp", Float(32), n, 8, "e")}, x86());
  CHECK(ir.find("call <8 x float> @llvm.exp") == std::string::npos);  // the polynomial, not per-lane calls
}

TEST_CASE("integer shifts, min/max, bool buffers and unrolled loops") {
  const int64_t n = 8;
  Buffer a = input("A", Int(32), n), b = input("B", Int(32), n), f = input("F", Float(32), n);
  Buffer shl = output("Shl", Int(32), n), shr = output("Shr", Int(32), n), ushr = output("UShr", UInt(32), n);
  Buffer mn = output("Min", Int(32), n), fmx = output("FMax", Float(32), n), neg = output("Neg", Bool(), n);
  Var i = Variable::make("i");
  std::vector<Stmt> stores = {
      store(shl, i, Binary::make(BinaryOp::Shl, load(a, i), load(b, i))),
      store(shr, i, Binary::make(BinaryOp::Shr, load(a, i), load(b, i))),
      store(ushr, i, Binary::make(BinaryOp::Shr, Cast::make(UInt(32), load(a, i)), Cast::make(UInt(32), load(b, i)))),
      store(mn, i, min(load(a, i), load(b, i))),
      store(fmx, i, max(load(f, i), make_float(0.0))),
      store(neg, i, Not::make(load(a, i) >= make_int(0, Int(32)))),
  };
  LoweredFunc fn{"bits", {a, b, f, shl, shr, ushr, mn, fmx, neg}, loop(i, 0, n, Seq::make(stores), ForKind::Unrolled), {}};
  auto m = jit(fn);
  std::vector<int32_t> av = {1, -16, 5, -1, 1 << 30, -7, 3, 100}, bv = {3, 2, 40, 31, 1, -1, 0, 33};
  std::vector<float> fv = {-1.0f, 2.0f, std::nanf(""), 0.5f, -0.0f, 3.0f, -3.0f, 1.0f};
  std::vector<int32_t> o_shl(n), o_shr(n), o_min(n);
  std::vector<uint32_t> o_ushr(n);
  std::vector<float> o_fmax(n);
  std::vector<uint8_t> o_neg(n);
  m->call("bits", {av.data(), bv.data(), fv.data(), o_shl.data(), o_shr.data(), o_ushr.data(), o_min.data(),
                   o_fmax.data(), o_neg.data()});
  for (int64_t j = 0; j < n; ++j) {
    CAPTURE(j);
    bool in_range = bv[j] >= 0 && bv[j] < 32;
    CHECK(o_shl[j] == (in_range ? int32_t(uint32_t(av[j]) << bv[j]) : 0));
    CHECK(o_shr[j] == (in_range ? (av[j] >> bv[j]) : (av[j] < 0 ? -1 : 0)));
    CHECK(o_ushr[j] == (in_range ? (uint32_t(av[j]) >> bv[j]) : 0u));
    CHECK(o_min[j] == std::min(av[j], bv[j]));
    if (std::isnan(fv[j])) {
      CHECK(std::isnan(o_fmax[j]));
    } else {
      CHECK(o_fmax[j] == std::max(fv[j], 0.0f));
    }
    CHECK(o_neg[j] == (av[j] < 0 ? 1 : 0));
  }
  // The unrolled loop leaves no loop behind.
  std::string ir = emit_llvm_ir_unoptimized({fn}, x86());
  CHECK(ir.find("phi") == std::string::npos);
}

namespace {
std::vector<int64_t> g_extern_calls;
extern "C" void texc_test_dot4(const float* a, const float* b, float* out) {
  *out = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  g_extern_calls.push_back(1);
}
}  // namespace

TEST_CASE("extern calls with element pointers") {
  // for i in 0..4: texc_test_dot4(&A[i*4], &B[0], &C[i])
  Buffer a = input("A", Float(32), 16), b = input("B", Float(32), 4), c = output("C", Float(32), 4);
  Var i = Variable::make("i");
  auto address = [](const Buffer& buf, Expr idx) {
    return Call::make(Int(64), "address_of", {load(buf, std::move(idx))}, CallKind::Intrinsic);
  };
  Expr call = Call::make(Int(32), "texc_test_dot4", {address(a, Expr(i) * 4), address(b, i64(0)), address(c, i)},
                         CallKind::Extern);
  LoweredFunc f{"tensorized", {a, b, c}, loop(i, 0, 4, Evaluate::make(call)), {}};
  auto m = jit(f, {{"texc_test_dot4", reinterpret_cast<void*>(&texc_test_dot4)}});
  auto av = iota_values<float>(16, 1.0f, 1.0f);
  std::vector<float> bv = {1, 0, 2, -1}, cv(4);
  g_extern_calls.clear();
  m->call("tensorized", {av.data(), bv.data(), cv.data()});
  CHECK(g_extern_calls.size() == 4);
  for (int r = 0; r < 4; ++r) CHECK(cv[r] == av[r * 4] + 2 * av[r * 4 + 2] - av[r * 4 + 3]);
}

TEST_CASE("several ops in one module, and bad target options") {
  auto m = JitModule::create({elementwise_add(16, "first"), elementwise_add(32, "second")}, x86());
  CHECK(m->lookup("first") != nullptr);
  CHECK(m->lookup("second") != nullptr);
  CHECK_THROWS_AS(JitModule::create({elementwise_add(4)}, CpuTargetOptions{"arm", "", "", 3}), TargetOptionError);
  CHECK_THROWS_AS(emit_llvm_ir({elementwise_add(4)}, CpuTargetOptions{"sparc", "", "", 3}), TargetOptionError);
  CHECK_THROWS_AS(emit_llvm_ir({elementwise_add(4)}, CpuTargetOptions{"arm", "not-a-cpu", "", 3}), TargetOptionError);
  // An explicit CPU without the host's features still runs.
  auto generic = JitModule::create({elementwise_add(16, "generic")}, CpuTargetOptions{"x86", "x86-64", "", 2});
  std::vector<float> a(16, 1.0f), b(16, 2.0f), c(16);
  generic->call("generic", {a.data(), b.data(), c.data()});
  CHECK(c[15] == 3.0f);
}

TEST_CASE("an extern function nobody provides is reported when the module is created") {
  Buffer a = input("A", Float(32), 4);
  Expr call = Call::make(Int(32), "texc_no_such_function", {Call::make(Int(64), "address_of", {load(a, i64(0))}, CallKind::Intrinsic)},
                         CallKind::Extern);
  LoweredFunc f{"calls_missing", {a}, Evaluate::make(call), {}};
  std::string message;
  try {
    JitModule::create({f}, x86());
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  CHECK(message.find("calls_missing") != std::string::npos);
  CHECK(message.find("texc_no_such_function") != std::string::npos);
}

TEST_CASE("a scalar load inside a vector select runs only when some lane selects it") {
  // for i in 0..4: Out[ramp(4i)] = select(ramp(4i) < 8, broadcast(A[(i / 2) * 2^40 + i]), -1)
  // For i >= 2 no lane selects the load, whose index is then far out of range.
  Buffer a = input("A", Float(32), 2), out = output("Out", Float(32), 16);
  Var i = Variable::make("i");
  Expr index = ramp(Expr(i) * 4, 4);
  Expr scalar_index = (Expr(i) / 2) * i64(int64_t(1) << 40) + Expr(i);
  Expr value = Select::make(index < Broadcast::make(i64(8), 4), Broadcast::make(load(a, scalar_index), 4),
                            make_const(Float(32, 4), -1.0));
  LoweredFunc f{"lane_guard", {a, out}, loop(i, 0, 4, store(out, index, value)), {}};
  auto m = jit(f);
  std::vector<float> av = {3.0f, 5.0f}, o(16, 0);
  m->call("lane_guard", {av.data(), o.data()});
  for (int k = 0; k < 16; ++k) CHECK(o[k] == (k < 4 ? 3.0f : k < 8 ? 5.0f : -1.0f));
}

TEST_CASE("a scoped attribute compiles to its body, at any depth and for any key") {
  // On a CPU every attribute is advice: CodeGenLLVM::emit_attr emits the body as it is.
  LoweredFunc f = parse_func(
      "func scaled(A: f32[16] input, B: f32[16] output) {\n"
      "  attr pragma(outer) = 1 {\n"
      "    for i in 0..16 {\n"
      "      attr virtual_thread(vt) = 2 {\n"
      "        B[i] = A[i] * 2.0f\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  attr pragma(tail) = 0 {\n"
      "    B[15] = B[15] + 1.0f\n"
      "  }\n"
      "}\n");
  auto m = jit(f);
  auto a = iota_values<float>(16, -4.0f, 0.5f);
  std::vector<float> b(16, 0.0f);
  m->call("scaled", {a.data(), b.data()});
  for (int i = 0; i < 16; ++i) CHECK(b[i] == a[i] * 2.0f + (i == 15 ? 1.0f : 0.0f));
}

TEST_CASE("bf16: conversions and arithmetic agree bit for bit with the interpreters, scalar and vector") {
  // R[i] = bf16(F[i]); S[i] = A[i] * B[i] + A[i] (bf16, each operation rounded); W[i] = f32(A[i]);
  // N[i] = i32(A[i]); H[i] = f16(A[i]); on the host CPU and on plain x86-64 (no AVX512-BF16, where
  // LLVM's own f32 -> bfloat conversion would call __truncsfbf2).
  std::vector<float> f;
  for (float v : {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -257.0f, 3.0e38f, std::numeric_limits<float>::max(),
                  -std::numeric_limits<float>::infinity(), std::nanf(""), 0x1p-130f, -0.0f, 65504.0f * 3})
    f.push_back(v);
  uint32_t seed = 12345;
  while (f.size() < 256) {  // random bit patterns (NaNs among them)
    seed = seed * 1664525u + 1013904223u;
    float v;
    std::memcpy(&v, &seed, 4);
    f.push_back(v);
  }
  const int64_t n = int64_t(f.size());
  std::vector<uint16_t> a(n), b(n);
  for (int64_t j = 0; j < n; ++j) {
    a[j] = float_to_bfloat(f[j] * 0.75f);
    b[j] = float_to_bfloat(f[size_t(n - 1 - j)]);
  }
  Buffer fb = input("F", Float(32), n), ab = input("A", BFloat16(), n), bb = input("B", BFloat16(), n);
  Buffer r = output("R", BFloat16(), n), s = output("S", BFloat16(), n), w = output("W", Float(32), n);
  Buffer ni = output("N", Int(32), n), h = output("H", Float(16), n);
  for (const std::string& mcpu : {std::string(""), std::string("x86-64")}) {
    for (int lanes : {1, 8}) {
      CAPTURE(mcpu);
      CAPTURE(lanes);
      Var i = Variable::make("i");
      Expr idx = lanes == 1 ? Expr(i) : ramp(Expr(i) * lanes, lanes);
      Expr av = load(ab, idx), bv = load(bb, idx);
      std::vector<Stmt> stores = {
          store(r, idx, Cast::make(BFloat16(lanes), load(fb, idx))),
          store(s, idx, av * bv + av),
          store(w, idx, Cast::make(Float(32, lanes), av)),
          store(ni, idx, Cast::make(Int(32, lanes), av)),
          store(h, idx, Cast::make(Float(16, lanes), av)),
      };
      std::string name = "bf16_" + std::to_string(lanes);
      LoweredFunc fn{name, {fb, ab, bb, r, s, w, ni, h}, loop(i, 0, n / lanes, Seq::make(stores)), {}};
      auto m = JitModule::create({fn}, CpuTargetOptions{"x86", mcpu, "", 3});
      std::vector<uint16_t> o_r(n), o_s(n), o_h(n);
      std::vector<float> o_w(n);
      std::vector<int32_t> o_n(n);
      m->call(name, {f.data(), a.data(), b.data(), o_r.data(), o_s.data(), o_w.data(), o_n.data(), o_h.data()});
      for (int64_t j = 0; j < n; ++j) {
        CAPTURE(j);
        float x = bfloat_to_float(a[j]), y = bfloat_to_float(b[j]);
        CHECK(o_r[j] == float_to_bfloat(f[j]));
        uint16_t sum = float_to_bfloat(bfloat_to_float(float_to_bfloat(x * y)) + x);
        if (std::isnan(bfloat_to_float(sum))) CHECK(std::isnan(bfloat_to_float(o_s[j])));  // any NaN payload
        else CHECK(o_s[j] == sum);
        CHECK((o_w[j] == x || (std::isnan(o_w[j]) && std::isnan(x))));
        if (std::isfinite(x) && std::fabs(x) < 2e9f) CHECK(o_n[j] == int32_t(x));
        if (std::isnan(x)) CHECK(std::isnan(half_to_float(o_h[j])));
        else CHECK(o_h[j] == float_to_half(x));
      }
    }
  }
}
