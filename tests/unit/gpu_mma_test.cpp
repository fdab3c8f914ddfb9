// The tensor-core fragment layouts (lower/gpu/MmaIntrinsics.h) and cuda-interp's form of an mma
// (lower/gpu/MmaExchange.h): every element of A and B is held by exactly one lane and register,
// the holder functions invert the element functions, TF32 rounding is PTX's cvt.rna, and a
// hand-written one-warp kernel that loads each lane's fragments by the layout computes A . B, also
// with its f16 fragments loaded from shared memory by ldmatrix (lower/gpu/LdMatrix.h), where lanes
// naming the wrong rows give a wrong C.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <tuple>
#include <set>
#include <sstream>

#include "backends/interp/CudaInterpreter.h"
#include "backends/interp/InterpError.h"
#include "backends/interp/ScalarOps.h"
#include "backends/interp/Tensor.h"
#include "ir/ConstEval.h"
#include "ir/IROperators.h"
#include "ir/IRMutator.h"
#include "ir/IRParser.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Substitute.h"
#include "lower/gpu/LdMatrix.h"
#include "lower/gpu/MmaIntrinsics.h"

using namespace texc;

namespace {

int64_t value(const Expr& e) { return *eval_int(e); }

// Every (row, col) of an A (16 x K) or B (K x 8) held once, and the holder of what register r of
// a lane holds is that lane and register.
void check_layout(const MmaShape& shape, bool a) {
  std::set<std::pair<int64_t, int64_t>> held;
  const int elements = a ? shape.a_elements : shape.b_elements;
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int r = 0; r < elements; ++r) {
      FragmentElement e = a ? mma_a_element(shape, make_int(lane), r) : mma_b_element(shape, make_int(lane), r);
      CHECK(held.insert({value(e.row), value(e.col)}).second);
      FragmentHolder h = a ? mma_a_holder(shape, e.row, e.col) : mma_b_holder(shape, e.row, e.col);
      CHECK(value(h.lane) == lane);
      CHECK(value(h.reg) == r);
    }
  CHECK(held.size() == size_t(a ? 16 * shape.k : shape.k * 8));
}

}  // namespace

TEST_CASE("TF32 (m16n8k8), f16 and bf16 (m16n8k16) fragments: each element held once, holders invert the layout") {
  for (Intrinsic which : {Intrinsic::MmaSyncTf32, Intrinsic::MmaSyncF16, Intrinsic::MmaSyncBf16}) {
    check_layout(mma_shape(which), true);
    check_layout(mma_shape(which), false);
  }
  std::set<std::pair<int64_t, int64_t>> c;
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 4; ++r) {
      FragmentElement e = mma_c_element(make_int(lane), r);
      c.insert({value(e.row), value(e.col)});
    }
  CHECK(c.size() == 128);  // the 16 x 8 accumulator, each element in one lane
}

TEST_CASE("the intrinsics' definitions: operand types, k and the element intrinsic") {
  std::map<std::string, std::tuple<Type, int64_t, Intrinsic>> expected = {
      {"cuda.mma_tf32", {Float(32), 8, Intrinsic::MmaSyncTf32}},
      {"cuda.mma_3xtf32", {Float(32), 8, Intrinsic::MmaSync3xTf32}},
      {"cuda.mma_f16", {Float(16), 16, Intrinsic::MmaSyncF16}},
      {"cuda.mma_bf16", {BFloat16(), 16, Intrinsic::MmaSyncBf16}}};
  std::vector<IntrinsicDef> defs = cuda_mma_intrinsics();
  CHECK(defs.size() == expected.size());
  for (const IntrinsicDef& d : defs) {
    CAPTURE(d.name);
    REQUIRE(expected.count(d.name));
    auto [operand, k, which] = expected.at(d.name);
    CHECK(d.inputs[0]->dtype == operand);
    CHECK(d.inputs[1]->dtype == operand);
    CHECK(d.outputs[0]->dtype == Float(32));
    CHECK(value(d.inputs[0]->shape[1]) == k);
    CHECK(d.symbol == intrinsic_name(which));
    CHECK(mma_shape(which).k == k);
    CHECK(is_mma(which));
  }
}

TEST_CASE("round_tf32 keeps 10 mantissa bits, rounding to nearest with ties away from zero") {
  CHECK(round_tf32(1.0) == 1.0);
  CHECK(round_tf32(1.0 + std::ldexp(1.0, -11)) == 1.0 + std::ldexp(1.0, -10));    // a tie: away from zero
  CHECK(round_tf32(-(1.0 + std::ldexp(1.0, -11))) == -(1.0 + std::ldexp(1.0, -10)));
  CHECK(round_tf32(1.0 + std::ldexp(1.0, -12)) == 1.0);                           // below half: down
  CHECK(round_tf32(1.0 + 3 * std::ldexp(1.0, -12)) == 1.0 + std::ldexp(1.0, -10)); // above half: up
  CHECK(std::isinf(round_tf32(INFINITY)));
}

TEST_CASE("a one-warp kernel loading each lane's TF32 fragments by the layout computes A . B on cuda-interp") {
  // A 16 x 8, B 8 x 8 (row major), C 16 x 8; g = tx/4, t = tx%4. Integer inputs < 2^10 are exact in TF32.
  std::ostringstream text;
  text << "func f(A: f32[128] input, B: f32[64] input, C: f32[128] output) {\n"
       << "  bound(threadIdx.x) tx in 0..32 {\n";
  const char* a[4] = {"A[tx/4*8 + tx%4]", "A[(tx/4 + 8)*8 + tx%4]", "A[tx/4*8 + tx%4 + 4]", "A[(tx/4 + 8)*8 + tx%4 + 4]"};
  const char* b[2] = {"B[tx%4*8 + tx/4]", "B[(tx%4 + 4)*8 + tx/4]"};
  const char* c[4] = {"C[tx/4*8 + tx%4*2]", "C[tx/4*8 + tx%4*2 + 1]", "C[(tx/4 + 8)*8 + tx%4*2]", "C[(tx/4 + 8)*8 + tx%4*2 + 1]"};
  for (int r = 0; r < 4; ++r) text << "    " << c[r] << " = 0.0f\n";
  text << "    mma_sync_tf32(" << c[0] << ", " << c[1] << ", " << c[2] << ", " << c[3] << ", " << a[0] << ", " << a[1]
       << ", " << a[2] << ", " << a[3] << ", " << b[0] << ", " << b[1] << ")\n";
  text << "  }\n}\n";
  LoweredFunc f = parse_func(text.str());
  f.kind = FunctionKind::Device;
  f.launch.thread_extents = {{"threadIdx.x", make_int(32)}};
  Tensor A(Float(32), {128}), B(Float(32), {64}), C(Float(32), {128});
  for (int64_t i = 0; i < 128; ++i) A.set_double(i, double(i % 13) - 6);
  for (int64_t i = 0; i < 64; ++i) B.set_double(i, double(i % 7) - 3);
  std::vector<Tensor*> args{&A, &B, &C};
  std::string error;
  try {
    CudaInterpreter(f).run(args);
  } catch (const InterpError& e) {
    error = e.what();
  }
  REQUIRE(error == "");
  for (int64_t m = 0; m < 16; ++m)
    for (int64_t n = 0; n < 8; ++n) {
      double want = 0;
      for (int64_t k = 0; k < 8; ++k) want += A.get_double(m * 8 + k) * B.get_double(k * 8 + n);
      CHECK(C.get_double(m * 8 + n) == want);
    }
}

namespace {

// A one-warp f16 kernel: A (16 x 16) and B (16 x 8, k by n) copied into shared tiles with padded
// rows (24 and 16 elements: 16-byte aligned), then one m16n8k16 step whose lanes load their
// fragments from the tiles by the layout.
LoweredFunc f16_tile_kernel() {
  std::ostringstream text;
  text << "func f(A: f16[256] input, B: f16[128] input, C: f32[128] output) {\n"
       << "  allocate AS: f16[384] shared {\n"
       << "    allocate BS: f16[256] shared {\n"
       << "      bound(threadIdx.x) tx in 0..32 {\n"
       << "        for i in 0..8 {\n"
       << "          AS[tx/2*24 + tx%2*8 + i] = A[tx/2*16 + tx%2*8 + i]\n"
       << "        }\n"
       << "        for i in 0..4 {\n"
       << "          BS[tx/2*16 + tx%2*4 + i] = B[tx/2*8 + tx%2*4 + i]\n"
       << "        }\n"
       << "        thread_barrier()\n";
  const char* c[4] = {"C[tx/4*8 + tx%4*2]", "C[tx/4*8 + tx%4*2 + 1]", "C[(tx/4 + 8)*8 + tx%4*2]", "C[(tx/4 + 8)*8 + tx%4*2 + 1]"};
  for (int r = 0; r < 4; ++r) text << "        " << c[r] << " = 0.0f\n";
  text << "        mma_sync_f16(" << c[0] << ", " << c[1] << ", " << c[2] << ", " << c[3];
  for (int r = 0; r < 8; ++r)  // a_r = A[g + 8*((r/2)%2)][2t + r%2 + 8*(r/4)]
    text << ", AS[(tx/4 + " << 8 * ((r / 2) % 2) << ")*24 + tx%4*2 + " << r % 2 + 8 * (r / 4) << "]";
  for (int r = 0; r < 4; ++r)  // b_r = B[2t + r%2 + 8*(r/2)][g]
    text << ", BS[(tx%4*2 + " << r % 2 + 8 * (r / 2) << ")*16 + tx/4]";
  text << ")\n      }\n    }\n  }\n}\n";
  LoweredFunc f = parse_func(text.str());
  f.kind = FunctionKind::Device;
  f.launch.thread_extents = {{"threadIdx.x", make_int(32)}};
  return f;
}

// C = A . B on cuda-interp with small integers (exact in f16 and f32); true if every element is right.
bool computes_product(const LoweredFunc& f) {
  Tensor A(Float(16), {256}), B(Float(16), {128}), C(Float(32), {128});
  for (int64_t i = 0; i < 256; ++i) A.set_double(i, double(i % 13) - 6);
  for (int64_t i = 0; i < 128; ++i) B.set_double(i, double(i % 7) - 3);
  std::vector<Tensor*> args{&A, &B, &C};
  CudaInterpreter(f).run(args);
  for (int64_t m = 0; m < 16; ++m)
    for (int64_t n = 0; n < 8; ++n) {
      double want = 0;
      for (int64_t k = 0; k < 16; ++k) want += A.get_double(m * 16 + k) * B.get_double(k * 8 + n);
      if (C.get_double(m * 8 + n) != want) return false;
    }
  return true;
}

}  // namespace

TEST_CASE("f16 fragments from shared memory by ldmatrix: A x4, B x2.trans, exact on cuda-interp; wrong rows, wrong C") {
  LoweredFunc f = f16_tile_kernel();
  REQUIRE(computes_product(f));
  f.body = use_ldmatrix(f.body);
  std::set<std::string> forms;  // N and trans of each operand's ldmatrix
  int calls = 0;
  for_each_expr(f.body, [&](const Expr& e) {
    const Call* c = e->as<Call>();
    if (!is_intrinsic_call(c, Intrinsic::LdMatrix)) return;
    ++calls;
    forms.insert(c->args[0]->as<Load>()->buffer->name + " x" + std::to_string(*eval_int(c->args[1])) +
                 (*eval_int(c->args[2]) ? " trans" : ""));
  });
  CHECK(calls == 12);
  CHECK(forms == std::set<std::string>{"AS x4", "BS x2 trans"});
  CHECK(computes_product(f));
  // lane L naming the row that lane L + 8 should: the rows of A's tile land in the wrong registers
  Expr tx;
  for_each_expr(f.body, [&](const Expr& e) {
    if (const Variable* v = e->as<Variable>(); v && v->name == "tx") tx = e;
  });
  REQUIRE(tx);
  const VarMap shifted{{tx->as<Variable>(), (tx + make_int(8)) % make_int(32)}};
  LoweredFunc wrong = f;
  wrong.body = mutate_with<Call>(f.body, [&](auto& m, const Call* c, const Expr& self) -> Expr {
    if (!is_intrinsic_call(c, Intrinsic::LdMatrix) || c->args[0]->as<Load>()->buffer->name != "AS") return m.descend(c, self);
    std::vector<Expr> args = c->args;
    args[0] = substitute(args[0], shifted);
    return make_intrinsic_call(Intrinsic::LdMatrix, c->type, args);
  });
  CHECK_FALSE(computes_product(wrong));
}
