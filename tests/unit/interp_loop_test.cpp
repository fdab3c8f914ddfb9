// Unit tests of backends/interp/LoopInterpreter.h: hand-built loop ASTs (plain loops, Blocks with
// init and predicate, vector ramp stores, Allocate, lets and ifs, extern calls, flattened
// arguments) checked against the reference interpreter or against values written by hand, and
// out-of-bounds accesses and unbound variables reported as InterpError.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>

#include "backends/interp/Check.h"
#include "backends/interp/InterpError.h"
#include "backends/interp/LoopInterpreter.h"
#include "backends/interp/ReferenceInterpreter.h"
#include "ir/IROperators.h"
#include "tests/unit/interp_test_ops.h"

using namespace texc;
using namespace texc::interp_test;

namespace {

Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return For::make(v, make_int(0), make_int(extent), kind, std::move(body));
}

/// Runs `func` on random inputs and checks every output against `op`'s reference.
CheckResult run_and_check(const LoweredFunc& func, const OpDef& op, LoopInterpreterOptions options = {}) {
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    std::vector<int64_t> shape;
    for (const Expr& e : op.inputs[i]->shape) shape.push_back(e->as<IntImm>()->value);
    tensors.emplace_back(op.inputs[i]->dtype, shape);
    tensors.back().fill_random(7 + i);
  }
  for (const Buffer& b : op.outputs) {
    std::vector<int64_t> shape;
    for (const Expr& e : b->shape) shape.push_back(e->as<IntImm>()->value);
    tensors.emplace_back(b->dtype, shape);
    tensors.back().fill_poison();
  }
  std::vector<Tensor*> args;
  for (Tensor& t : tensors) args.push_back(&t);
  LoopInterpreter(func, options).run(args);
  std::vector<const Tensor*> inputs(args.begin(), args.begin() + op.inputs.size());
  ReferenceInterpreter ref(op, inputs);
  CheckResult all;
  for (size_t o = 0; o < op.outputs.size(); ++o) {
    CheckResult r = check_output(ref, op.outputs[o]->name, *args[op.inputs.size() + o]);
    all.passed = all.passed && r.passed;
    all.points_checked += r.points_checked;
    if (!r.passed) all.message = r.message;
  }
  return all;
}

std::string run_error(const LoweredFunc& func, const std::vector<Tensor*>& args) {
  try {
    LoopInterpreter(func).run(args);
  } catch (const InterpError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a plain matmul loop nest matches the reference") {
  const int64_t M = 8, N = 6, K = 5;
  Buffer A = buffer("A", Float(32), {M, K}, BufferRole::Input), B = buffer("B", Float(32), {K, N}, BufferRole::Input);
  Buffer C = buffer("C", Float(32), {M, N}, BufferRole::Output);
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Stmt update = Store::make(C, {i, j}, Load::make(C, {i, j}) + Load::make(A, {i, k}) * Load::make(B, {k, j}));
  Stmt body = loop(i, M, loop(j, N, Seq::make({Store::make(C, {i, j}, make_float(0)), loop(k, K, update)})),
                   ForKind::Parallel);
  CheckResult r = run_and_check(LoweredFunc{"matmul", {A, B, C}, body, {}}, matmul_op(A, B, C, M, N, K));
  CHECK(r.passed);
  CHECK(r.points_checked == M * N);
  CAPTURE(r.message);
}

TEST_CASE("a forgotten initialisation fails the check (the output starts as NaN)") {
  const int64_t M = 4, N = 4, K = 4;
  Buffer A = buffer("A", Float(32), {M, K}, BufferRole::Input), B = buffer("B", Float(32), {K, N}, BufferRole::Input);
  Buffer C = buffer("C", Float(32), {M, N}, BufferRole::Output);
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Stmt update = Store::make(C, {i, j}, Load::make(C, {i, j}) + Load::make(A, {i, k}) * Load::make(B, {k, j}));
  Stmt body = loop(i, M, loop(j, N, loop(k, K, update)));
  CheckResult r = run_and_check(LoweredFunc{"matmul", {A, B, C}, body, {}}, matmul_op(A, B, C, M, N, K));
  CHECK(!r.passed);
  CHECK(r.message.find("C[0, 0] = nan") == 0);
}

TEST_CASE("Block: iter vars bound, init at the first reduction step, predicate of a non-dividing split") {
  // C[i] = sum(A[i, k] for k in 0..5), i in 0..8, with i split by 3 (9 points, one guarded) and k by 2
  // (6 points, one guarded). Block init must run at k == 0 only.
  const int64_t M = 8, K = 5;
  Buffer A = buffer("A", Float(32), {M, K}, BufferRole::Input);
  Buffer C = buffer("C", Float(32), {M}, BufferRole::Output);
  Var io = Variable::make("io"), ii = Variable::make("ii"), ko = Variable::make("ko"), ki = Variable::make("ki");
  Var i = Variable::make("i"), k = Variable::make("k");
  std::vector<IterVar> ivs = {IterVar{i, make_int(0), make_int(M), false}, IterVar{k, make_int(0), make_int(K), true}};
  Expr bi = Expr(io) * 3 + Expr(ii), bk = Expr(ko) * 2 + Expr(ki);
  Stmt block = Block::make("C", ivs, {bi, bk}, logical_and(bi < make_int(M), bk < make_int(K)), Store::make(C, {i}, make_float(0)),
                           Store::make(C, {i}, Load::make(C, {i}) + Load::make(A, {i, k})));
  Stmt body = loop(io, 3, loop(ko, 3, loop(ii, 3, loop(ki, 2, block), ForKind::Unrolled)), ForKind::ThreadBound);

  Stage s;
  s.name = "C";
  s.buffer = C;
  Var si = Variable::make("i"), sk = Variable::make("k");
  s.axes = {IterVar{si, make_int(0), make_int(M)}};
  s.body = Reduce::make(ReduceKind::Sum, Load::make(A, {si, sk}), {IterVar{sk, make_int(0), make_int(K), true}});
  OpDef op;
  op.name = "rowsum";
  op.inputs = {A};
  op.outputs = {C};
  op.stages = {s};
  CheckResult r = run_and_check(LoweredFunc{"rowsum", {A, C}, body, {}}, op);
  CAPTURE(r.message);
  CHECK(r.passed);

  // Without the predicate the guarded point i == 8 is stored out of bounds: reported, not a crash.
  Stmt unguarded = Block::make("C", ivs, {bi, bk}, bk < make_int(K), Store::make(C, {i}, make_float(0)),
                               Store::make(C, {i}, Load::make(C, {i}) + Load::make(A, {i, k})));
  Tensor a(Float(32), {M, K}), c(Float(32), {M});
  std::string err = run_error(LoweredFunc{"rowsum", {A, C}, loop(io, 3, loop(ko, 3, loop(ii, 3, loop(ki, 2, unguarded)))), {}},
                              {&a, &c});
  CHECK(err == "out-of-bounds store to 'C' at [8]: index 8 in dimension 0 is outside [0, 8) (shape [8])");
}

TEST_CASE("vector ramp loads and stores, broadcast, and a flattened 1-D argument") {
  // B[ramp(4 io, 1, 4)] = A[ramp(4 io, 1, 4)] * x4(2.0) + x4(1.0), with B declared 1-D of 16.
  Buffer A = buffer("A", Float(32), {16}, BufferRole::Input), B = buffer("B", Float(32), {16}, BufferRole::Output);
  Var io = Variable::make("io");
  Expr idx = Ramp::make(Expr(io) * 4, make_int(1), 4);
  Stmt body = loop(io, 4, Store::make(B, {idx}, Load::make(A, {idx}) * Broadcast::make(make_float(2.0), 4) +
                                                    Broadcast::make(make_float(1.0), 4)));
  Tensor a(Float(32), {4, 4}), b(Float(32), {4, 4});
  a.fill_random(3);
  LoopInterpreter(LoweredFunc{"axpb", {A, B}, body, {}}).run({&a, &b});
  for (int64_t p = 0; p < 16; ++p) CHECK(b.get_double(p) == double(float(float(a.get_double(p) * 2.0) + 1.0f)));

  // A vector store reads every lane before writing: reversing in place with one 4-lane store.
  Buffer R = buffer("R", Int(32), {4}, BufferRole::Output);
  Stmt reverse = Store::make(R, {Ramp::make(make_int(0), make_int(1), 4)}, Load::make(R, {Ramp::make(make_int(3), make_int(-1), 4)}));
  Tensor r(Int(32), {4});
  for (int p = 0; p < 4; ++p) r.set_int(p, p * 10);
  LoopInterpreter(LoweredFunc{"reverse", {R}, reverse, {}}).run({&r});
  CHECK(r.get_int(0) == 30);
  CHECK(r.get_int(3) == 0);

  // A ramp that runs past the end is reported with the lane's index.
  Stmt past = loop(io, 4, Store::make(B, {Ramp::make(Expr(io) * 4 + 1, make_int(1), 4)}, Broadcast::make(make_float(0), 4)));
  CHECK(run_error(LoweredFunc{"past", {A, B}, past, {}}, {&a, &b}) ==
        "out-of-bounds store to 'B' at [16]: index 16 in dimension 0 is outside [0, 16) (shape [16])");
}

TEST_CASE("Allocate, LetStmt, Let, IfThenElse, Select, casts and integer wrap-around") {
  // T = local[8]; T[i] = A[i] + 1; B[i] = i < 4 ? T[7 - i] * 2 : let t = T[i] in t * t
  Buffer A = buffer("A", Int(8), {8}, BufferRole::Input), B = buffer("B", Int(8), {8}, BufferRole::Output);
  Buffer T = buffer("T", Int(8), {8}, BufferRole::Intermediate, MemScope::Local);
  Var i = Variable::make("i"), j = Variable::make("j"), t = Variable::make("t", Int(8)), n = Variable::make("n");
  Stmt fill = loop(i, 8, Store::make(T, {i}, Load::make(A, {i}) + make_int(1, Int(8))));
  Expr squared = Let::make(t, Load::make(T, {j}), Expr(t) * Expr(t));
  Stmt use = loop(j, 8, IfThenElse::make(Expr(j) < Expr(n), Store::make(B, {j}, Load::make(T, {7 - Expr(j)}) * make_int(2, Int(8))),
                                         Store::make(B, {j}, Select::make(Expr(j) >= 6, squared, make_int(-1, Int(8))))));
  Stmt body = LetStmt::make(n, make_int(4), Allocate::make(T, Seq::make({fill, use})));
  Tensor a(Int(8), {8}), b(Int(8), {8});
  for (int p = 0; p < 8; ++p) a.set_int(p, p * 20);  // 0 20 40 ... 140 wraps to -116
  LoopInterpreter(LoweredFunc{"misc", {A, B}, body, {}}).run({&a, &b});
  // T = 1 21 41 61 81 101 121 -115
  CHECK(b.get_int(0) == int8_t(-115 * 2));  // 26 after wrap-around
  CHECK(b.get_int(0) == 26);
  CHECK(b.get_int(1) == int8_t(121 * 2));
  CHECK(b.get_int(3) == int8_t(81 * 2));
  CHECK(b.get_int(4) == -1);
  CHECK(b.get_int(5) == -1);
  CHECK(b.get_int(6) == int8_t(121 * 121));
  CHECK(b.get_int(7) == int8_t(-115 * -115));

  // Casts: float -> int truncates toward zero; i32 -> u8 wraps.
  Buffer F = buffer("F", Float(32), {2}, BufferRole::Input), G = buffer("G", Int(32), {2}, BufferRole::Output);
  Buffer H = buffer("H", UInt(8), {2}, BufferRole::Output);
  Stmt casts = loop(i, 2, Seq::make({Store::make(G, {i}, Cast::make(Int(32), Load::make(F, {i}))),
                                     Store::make(H, {i}, Cast::make(UInt(8), Cast::make(Int(32), Load::make(F, {i})) * make_int(100, Int(32))))}));
  Tensor f(Float(32), {2}), g(Int(32), {2}), h(UInt(8), {2});
  f.set_double(0, -2.75);
  f.set_double(1, 3.5);
  LoopInterpreter(LoweredFunc{"casts", {F, G, H}, casts, {}}).run({&f, &g, &h});
  CHECK(g.get_int(0) == -2);
  CHECK(g.get_int(1) == 3);
  CHECK(h.get_int(0) == 56);  // -200 mod 256
  CHECK(h.get_int(1) == 44);  // 300 mod 256
}

TEST_CASE("reading an allocated buffer before writing it gives NaN; using it outside its Allocate is an error") {
  Buffer B = buffer("B", Float(32), {2}, BufferRole::Output);
  Buffer T = buffer("T", Float(32), {2}, BufferRole::Intermediate, MemScope::Local);
  Var i = Variable::make("i");
  Stmt body = Allocate::make(T, loop(i, 2, Store::make(B, {i}, Load::make(T, {i}))));
  Tensor b(Float(32), {2});
  LoopInterpreter(LoweredFunc{"uninit", {B}, body, {}}).run({&b});
  CHECK(std::isnan(b.get_double(0)));
  Stmt outside = Seq::make({Allocate::make(T, loop(i, 2, Store::make(T, {i}, make_float(1)))),
                            loop(i, 2, Store::make(B, {i}, Load::make(T, {i})))});
  CHECK(run_error(LoweredFunc{"outside", {B}, outside, {}}, {&b}) == "load from 'T' outside the Allocate that gives it storage");
  // A buffer that is never allocated: an error at compile time, or auto-allocated when asked.
  Stmt unallocated = loop(i, 2, Seq::make({Store::make(T, {i}, make_float(3)), Store::make(B, {i}, Load::make(T, {i}))}));
  CHECK_THROWS_AS(LoopInterpreter(LoweredFunc{"unallocated", {B}, unallocated, {}}), InterpError);
  LoopInterpreter(LoweredFunc{"unallocated", {B}, unallocated, {}}, LoopInterpreterOptions{true}).run({&b});
  CHECK(b.get_double(1) == 3);
}

TEST_CASE("an out-of-bounds load names the buffer, the index and the extent") {
  Buffer A = buffer("A", Float(32), {4, 3}, BufferRole::Input), B = buffer("B", Float(32), {4, 3}, BufferRole::Output);
  Var i = Variable::make("i"), j = Variable::make("j");
  Stmt body = loop(i, 4, loop(j, 3, Store::make(B, {i, j}, Load::make(A, {i, Expr(j) + Expr(i)}))));
  Tensor a(Float(32), {4, 3}), b(Float(32), {4, 3});
  CHECK(run_error(LoweredFunc{"oob", {A, B}, body, {}}, {&a, &b}) ==
        "out-of-bounds load from 'A' at [1, 3]: index 3 in dimension 1 is outside [0, 3) (shape [4, 3])");
  Tensor wrong(Float(32), {4, 4});
  CHECK(run_error(LoweredFunc{"oob", {A, B}, body, {}}, {&wrong, &b}) ==
        "argument 'A' of 'oob' must be f32[4, 3], got f32[4, 4]");
}

TEST_CASE("a variable used outside its loop is rejected when the AST is compiled") {
  Buffer B = buffer("B", Int(64), {4}, BufferRole::Output);
  Var i = Variable::make("i");
  Stmt body = Seq::make({loop(i, 4, Store::make(B, {i}, Expr(i))), Store::make(B, {make_int(0)}, Expr(i))});
  std::string message;
  try {
    LoopInterpreter interp(LoweredFunc{"escape", {B}, body, {}});
  } catch (const InterpError& e) {
    message = e.what();
  }
  CHECK(message == "variable 'i' is used outside the loop, let or block that binds it in 'escape'");
}

TEST_CASE("an extern call receives element pointers (tensorize's lower extern)") {
  // c[0:16] = my_dot16(&a[0], &b[0, 0], &c[0]) for each of 2 rows of a and c.
  Buffer A = buffer("a", Int(8), {2, 16}, BufferRole::Input), B = buffer("b", Int(8), {16, 16}, BufferRole::Input);
  Buffer C = buffer("c", Int(32), {2, 16}, BufferRole::Output);
  Var r = Variable::make("r");
  auto addr = [](const Buffer& buf, std::vector<Expr> idx) {
    return Call::make(Index(), "address_of", {Load::make(buf, std::move(idx))}, CallKind::Intrinsic);
  };
  Stmt body = loop(r, 2, Evaluate::make(Call::make(Int(32), "my_dot16",
                                                   {addr(A, {r, make_int(0)}), addr(B, {make_int(0), make_int(0)}),
                                                    addr(C, {r, make_int(0)})},
                                                   CallKind::Extern)));
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Stage s;
  s.name = "c";
  s.buffer = C;
  s.axes = {IterVar{i, make_int(0), make_int(2)}, IterVar{j, make_int(0), make_int(16)}};
  s.body = Reduce::make(ReduceKind::Sum, Cast::make(Int(32), Load::make(A, {i, k})) * Cast::make(Int(32), Load::make(B, {j, k})),
                        {IterVar{k, make_int(0), make_int(16), true}});
  OpDef op;
  op.name = "dot16";
  op.inputs = {A, B};
  op.outputs = {C};
  op.stages = {s};
  CheckResult res = run_and_check(LoweredFunc{"dot16", {A, B, C}, body, {}}, op);
  CAPTURE(res.message);
  CHECK(res.passed);
  Stmt unknown = Evaluate::make(Call::make(Int(32), "no_such_symbol", {}, CallKind::Extern));
  CHECK_THROWS_AS(LoopInterpreter(LoweredFunc{"unknown", {A, B, C}, unknown, {}}), InterpError);
}

TEST_CASE("a 64x64x64 matmul runs in well under a second") {
  const int64_t M = 64, N = 64, K = 64;
  Buffer A = buffer("A", Float(32), {M * K}, BufferRole::Input), B = buffer("B", Float(32), {K * N}, BufferRole::Input);
  Buffer C = buffer("C", Float(32), {M * N}, BufferRole::Output);
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Expr c_idx = Expr(i) * N + Expr(j);
  Stmt update = Store::make(C, {c_idx}, Load::make(C, {c_idx}) + Load::make(A, {Expr(i) * K + Expr(k)}) *
                                                                   Load::make(B, {Expr(k) * N + Expr(j)}));
  Stmt body = loop(i, M, loop(j, N, Seq::make({Store::make(C, {c_idx}, make_float(0)), loop(k, K, update)})));
  Tensor a(Float(32), {M, K}), b(Float(32), {K, N}), c(Float(32), {M, N});
  a.fill_random(1);
  b.fill_random(2);
  LoopInterpreter interp(LoweredFunc{"matmul", {A, B, C}, body, {}});
  auto start = std::chrono::steady_clock::now();
  interp.run({&a, &b, &c});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("64x64x64 matmul in the loop interpreter: " << seconds * 1000 << " ms");
#if defined(__SANITIZE_ADDRESS__)
  const double limit = 10.0;  // AddressSanitizer makes every closure call several times slower
#else
  const double limit = 1.0;
#endif
  CHECK(seconds < limit);
  double want = 0;
  for (int64_t kk = 0; kk < K; ++kk) want = double(float(want + double(float(a.get_double(5 * K + kk) * b.get_double(kk * N + 7)))));
  CHECK(c.get_double(5 * N + 7) == want);
}
