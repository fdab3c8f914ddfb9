// Unit tests of ir/Verifier.h: valid functions pass, and each broken invariant is reported with a
// message that names it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ir/IROperators.h"
#include "ir/Intrinsics.h"
#include "ir/IRParser.h"
#include "ir/Verifier.h"

using namespace texc;

namespace {
Expr i64(int64_t v) { return make_int(v); }

LoweredFunc func_of(std::vector<Buffer> args, Stmt body) { return LoweredFunc{"f", std::move(args), std::move(body), {}}; }

// The verifier's message, or "" when it accepts f.
std::string problem(const LoweredFunc& f, VerifyOptions options = {}) { return verify(f, options).value_or(""); }
}  // namespace

TEST_CASE("valid functions pass") {
  LoweredFunc matmul = parse_func(
      "func matmul(A: f32[64, 32] input, B: f32[32, 16] input, C: f32[64, 16] output) {\n"
      "  for io in 0..8 {\n"
      "    for C.j in 0..16 {\n"
      "      for C.k in 0..32 {\n"
      "        for ii in 0..8 {\n"
      "          block C(i: 0..64 = io*8 + ii, j: 0..16 = C.j, k: reduce 0..32 = C.k) where (io*8 + ii < 64) {\n"
      "            init {\n"
      "              C[i, j] = 0.0f\n"
      "            }\n"
      "            C[i, j] = C[i, j] + A[i, k]*B[k, j]\n"
      "          }\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
  CHECK(problem(matmul) == "");
  VerifyOptions no_blocks;
  no_blocks.require_no_blocks = true;
  CHECK(problem(matmul, no_blocks) == "block 'C' is left after lower_blocks in `block C(i: 0..64 = io*8 + ii, j: 0..16 = "
                                      "C.j, k: reduce 0..32 = C.k) where (io*8 + ii < 64) {`");

  LoweredFunc sized = parse_func(
      "func g(A: f32[N] input, B: f32[N] output) {\n"
      "  allocate T: f32[N] local {\n"
      "    for i in 0..N {\n"
      "      let x = A[i]*2.0f in {\n"
      "        T[i] = x\n"
      "      }\n"
      "    }\n"
      "    for i in 0..N {\n"
      "      B[i] = T[i]\n"
      "    }\n"
      "  }\n"
      "}\n");
  CHECK(problem(sized) == "");
}

TEST_CASE("unbound variables and re-bound variables") {
  Buffer a = BufferNode::make("A", Float(32), {i64(8)}, MemScope::Global, BufferRole::Output);
  Var i = Variable::make("i");
  CHECK(problem(func_of({a}, Store::make(a, {i}, make_float(1.0)))) ==
        "variable 'i' is used outside any loop, let or block that binds it in `A[i] = 1.0f`");
  Stmt twice = For::make(i, i64(0), i64(8), ForKind::Serial,
                         For::make(i, i64(0), i64(8), ForKind::Serial, Store::make(a, {i}, make_float(1.0))));
  CHECK(problem(func_of({a}, twice)).find("variable 'i' is bound again inside its own scope") == 0);
  // The same variable in sibling loops is fine.
  Stmt siblings = Seq::make({For::make(i, i64(0), i64(8), ForKind::Serial, Store::make(a, {i}, make_float(1.0))),
                             For::make(i, i64(0), i64(8), ForKind::Serial, Store::make(a, {i}, make_float(2.0)))});
  CHECK(problem(func_of({a}, siblings)) == "");
  // A block's iter var is not visible outside the block.
  Var bi = Variable::make("bi");
  Stmt block = Block::make("A", {{bi, i64(0), i64(8)}}, {i64(0)}, nullptr, nullptr, Store::make(a, {bi}, make_float(1.0)));
  CHECK(problem(func_of({a}, Seq::make({block, Store::make(a, {bi}, make_float(1.0))}))).find("variable 'bi'") == 0);
}

TEST_CASE("buffers must be arguments or allocated around their use") {
  Buffer a = BufferNode::make("A", Float(32), {i64(8)}, MemScope::Global, BufferRole::Output);
  Buffer t = BufferNode::make("T", Float(32), {i64(8)}, MemScope::Local);
  CHECK(problem(func_of({a}, Store::make(t, {i64(0)}, make_float(1.0)))) ==
        "store of buffer 'T', which is neither an argument nor allocated here in `T[0] = 1.0f`");
  Stmt after_scope = Seq::make({Allocate::make(t, Store::make(t, {i64(0)}, make_float(1.0))),
                                Store::make(a, {i64(0)}, Load::make(t, {i64(0)}))});
  CHECK(problem(func_of({a}, after_scope)) ==
        "load of buffer 'T', which is neither an argument nor allocated here in `A[0] = T[0]`");
}

TEST_CASE("ranks and types") {
  Buffer a = BufferNode::make("A", Float(32), {i64(8), i64(8)}, MemScope::Global, BufferRole::Output);
  // Nodes built without make() to get past its checks, as a buggy pass might.
  Stmt bad_rank = std::make_shared<const Store>(a, std::vector<Expr>{i64(0)}, make_float(1.0));
  CHECK(problem(func_of({a}, bad_rank)) == "store of 'A' with 1 indices, but it has rank 2 in `A[0] = 1.0f`");
  Stmt bad_type = std::make_shared<const Store>(a, std::vector<Expr>{i64(0), i64(0)}, make_int(1));
  CHECK(problem(func_of({a}, bad_type)) == "store of i64 into 'A' of f32 in `A[0, 0] = 1`");
  Stmt bad_lanes = std::make_shared<const Store>(a, std::vector<Expr>{i64(0), Ramp::make(i64(0), i64(1), 4)},
                                                 make_float(1.0));
  CHECK(problem(func_of({a}, bad_lanes)).find("store of f32 to 4 lane(s) of 'A'") == 0);
  Stmt bad_cond = std::make_shared<const IfThenElse>(i64(1), Store::make(a, {i64(0), i64(0)}, make_float(1.0)), nullptr);
  CHECK(problem(func_of({a}, bad_cond)).find("if condition of type i64") == 0);
  Expr mixed = std::make_shared<const Binary>(Float(32), BinaryOp::Add, make_float(1.0), make_float(1.0, Float(64)));
  CHECK(problem(func_of({a}, Store::make(a, {i64(0), i64(0)}, mixed))).find("operands of '+' have types f32 and f64") == 0);
  Var n = Variable::make("n", Int(32));
  Stmt narrow_loop = For::make(n, IntImm::make(Int(32), 0), IntImm::make(Int(32), 4), ForKind::Serial,
                               Store::make(a, {i64(0), i64(0)}, make_float(1.0)));
  CHECK(problem(func_of({a}, narrow_loop)).find("loop variable 'n' has type i32, not i64") == 0);
}

TEST_CASE("no reductions in a loop AST") {
  Buffer a = BufferNode::make("A", Float(32), {i64(8)}, MemScope::Global, BufferRole::Output);
  Var k = Variable::make("k");
  Expr red = Reduce::make(ReduceKind::Sum, make_float(1.0), {{k, i64(0), i64(4)}});
  CHECK(problem(func_of({a}, Store::make(a, {i64(0)}, red))) ==
        "a reduction (sum) is left in the loop AST in `A[0] = sum(1.0f for k in 0..4)`");
}

TEST_CASE("intrinsic calls are those of ir/Intrinsics.def, with their arity") {
  Buffer a = BufferNode::make("A", Float(32), {i64(8)}, MemScope::Global, BufferRole::Output);
  LoweredFunc f;
  f.name = "f";
  f.args = {a};
  Var i = Variable::make("i");
  auto with = [&](Expr value) {
    f.body = For::make(i, i64(0), i64(8), ForKind::Serial, Store::make(a, {i}, value));
    return verify(f);
  };
  CHECK(!with(make_intrinsic_call(Intrinsic::Likely, Float(32), {make_const(Float(32), 1.0)})));
  auto unknown = with(Call::make(Float(32), "frobnicate", {make_const(Float(32), 1.0)}, CallKind::Intrinsic));
  REQUIRE(unknown);
  CHECK(unknown->find("not an intrinsic") != std::string::npos);
  CHECK(with(Call::make(Float(32), "likely", {}, CallKind::Intrinsic)));
  CHECK(intrinsic_effect(Intrinsic::AddressOf) == IntrinsicEffect::Pure);
  CHECK(std::string(intrinsic_name(Intrinsic::Likely)) == "likely");
}
