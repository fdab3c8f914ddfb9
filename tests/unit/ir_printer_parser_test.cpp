// Unit tests of ir/IRPrinter.h, ir/IRParser.h and ir/StructuralEqual.h: the printed form of each
// construct, print -> parse -> print round trips, parse errors, and alpha-equivalence.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/StructuralEqual.h"

using namespace texc;

namespace {
Expr i64(int64_t v) { return make_int(v); }
Var W(const Expr& e) { return std::static_pointer_cast<const Variable>(e); }

// Text that is already in printed form must come back unchanged.
void check_func_round_trip(const std::string& text) {
  LoweredFunc f = parse_func(text);
  std::string printed = to_string(f);
  CHECK(printed == text);
  LoweredFunc again = parse_func(printed);
  CHECK(structurally_equal(f, again));
}

void check_expr_round_trip(const Expr& e, const std::string& expected_text) {
  std::string printed = to_string(e);
  CHECK(printed == expected_text);
  ParseEnv env;
  Expr parsed = parse_expr(printed, env);
  CHECK(structurally_equal(e, parsed));
  CHECK(to_string(parsed) == printed);
}

DiagId parse_error_of(const std::string& text) {
  try {
    parse_func(text);
  } catch (const UserError& e) {
    return e.diag.id;
  }
  FAIL("no error for: " << text);
  return DiagId::SyntaxError;
}
}  // namespace

TEST_CASE("typed literals round-trip") {
  check_expr_round_trip(i64(3), "3");
  check_expr_round_trip(i64(-3), "-3");
  check_expr_round_trip(IntImm::make(Int(32), 3), "3i32");
  check_expr_round_trip(IntImm::make(Int(8), -128), "-128i8");
  check_expr_round_trip(IntImm::make(UInt(8), 255), "255u8");
  check_expr_round_trip(IntImm::make(UInt(64), -1), "18446744073709551615u64");
  check_expr_round_trip(i64(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  check_expr_round_trip(make_bool(true), "true");
  check_expr_round_trip(make_float(1.5), "1.5f");
  check_expr_round_trip(make_float(1.5, Float(64)), "1.5");
  check_expr_round_trip(make_float(2.0), "2.0f");
  check_expr_round_trip(make_float(0.1), "0.1f");
  check_expr_round_trip(make_float(0.1, Float(64)), "0.1");
  check_expr_round_trip(make_float(1.0 / 3.0, Float(64)), "0.3333333333333333");
  check_expr_round_trip(make_float(1e30), "1e+30f");
  check_expr_round_trip(make_float(-0.0), "-0.0f");
  check_expr_round_trip(make_float(1.5, Float(16)), "1.5h");
  check_expr_round_trip(make_float(1.5, BFloat16()), "1.5bf");
  check_expr_round_trip(make_float(-std::numeric_limits<double>::infinity(), BFloat16()), "-infbf");
  CHECK(parse_expr("nanbf")->type == BFloat16());
  CHECK(std::isnan(parse_expr("nanbf")->as<FloatImm>()->value));
  check_expr_round_trip(make_float(-std::numeric_limits<double>::infinity()), "-inff");
  check_expr_round_trip(make_float(std::numeric_limits<double>::infinity(), Float(64)), "inf");
  Expr nan = parse_expr("nanf");
  CHECK(std::isnan(nan->as<FloatImm>()->value));
  CHECK(to_string(nan) == "nanf");
}

TEST_CASE("operators with minimal parentheses") {
  ParseEnv env;
  Expr x = parse_expr("x", env), y = parse_expr("y", env), z = parse_expr("z", env);
  check_expr_round_trip((x + y) * z, "(x + y)*z");
  check_expr_round_trip(x + y * z, "x + y*z");
  check_expr_round_trip(x - (y - z), "x - (y - z)");
  check_expr_round_trip((x - y) - z, "x - y - z");
  check_expr_round_trip(x / (y * z), "x/(y*z)");
  check_expr_round_trip(x % 8 + y / 4, "x%8 + y/4");
  check_expr_round_trip(x * -3, "x*-3");
  check_expr_round_trip(x - -3, "x - -3");
  check_expr_round_trip(logical_or(logical_and(x < y, y <= z), logical_not(eq(x, z))), "x < y && y <= z || !(x == z)");
  check_expr_round_trip(eq(x < y, y < z), "x < y == y < z");
  check_expr_round_trip(x < Select::make(eq(x, y), y, z), "x < select(x == y, y, z)");
  check_expr_round_trip(Binary::make(BinaryOp::Shl, x + 1, i64(2)), "x + 1 << 2");
  check_expr_round_trip(Binary::make(BinaryOp::Shr, x, i64(2)) + 1, "(x >> 2) + 1");
  check_expr_round_trip(min(x, max(y, i64(0))), "min(x, max(y, 0))");
  check_expr_round_trip(Select::make(x < y, x, y), "select(x < y, x, y)");
  check_expr_round_trip(Cast::make(Float(32), x), "f32(x)");
  check_expr_round_trip(Cast::make(BFloat16(), x), "bf16(x)");
  check_expr_round_trip(Cast::make(Int(32), x) + IntImm::make(Int(32), 1), "i32(x) + 1i32");
  check_expr_round_trip(Ramp::make(x * 8, i64(1), 8), "ramp(x*8, 1, 8)");
  check_expr_round_trip(Broadcast::make(make_float(0.0), 4), "broadcast(0.0f, 4)");
  check_expr_round_trip(Call::make(Float(32), "exp", {make_float(1.0)}, CallKind::Math), "exp(1.0f)");
  check_expr_round_trip(Call::make(Float(32), "atan2", {make_float(1.0), make_float(2.0)}, CallKind::Math),
                        "atan2(1.0f, 2.0f)");
  check_expr_round_trip(Call::make(Bool(), "isnan", {make_float(1.0)}, CallKind::Math), "isnan(1.0f)");  // bool by default
  check_expr_round_trip(Call::make(Bool(4), "isinf", {Broadcast::make(make_float(1.0), 4)}, CallKind::Math),
                        "isinf(broadcast(1.0f, 4))");
  check_expr_round_trip(Call::make(Int(64), "likely", {x}, CallKind::Intrinsic), "likely(x)");
  check_expr_round_trip(Call::make(Int(32), "my_fn", {x}, CallKind::Extern), "call my_fn(x)");
  check_expr_round_trip(Call::make(UInt(64), "handle_of", {x}, CallKind::Intrinsic), "handle_of:u64(x)");
  check_expr_round_trip(Call::make(Float(32), "exp", {make_float(1.0)}, CallKind::Intrinsic), "call.intrinsic exp(1.0f)");
}

TEST_CASE("lets and reductions bind their variables") {
  Var l = Variable::make("l");
  ParseEnv env;
  Expr x = parse_expr("x", env);
  check_expr_round_trip(Let::make(l, x * 2, l + l), "let l = x*2 in l + l");
  check_expr_round_trip(Let::make(l, x, l) + 1, "(let l = x in l) + 1");
  Buffer a = BufferNode::make("A", Float(32), {i64(4), i64(8)});
  Var k = Variable::make("k"), r = Variable::make("r");
  Expr red = Reduce::make(ReduceKind::Sum, Load::make(a, {x, k + r}), {{k, i64(0), i64(4)}, {r, i64(1), i64(2)}});
  CHECK(to_string(red) == "sum(A[x, k + r] for k in 0..4, r in 1..3)");
  ParseEnv with_a;
  with_a.buffers["A"] = a;
  Expr parsed = parse_expr(to_string(red), with_a);
  CHECK(structurally_equal(red, parsed));
  Expr mx = parse_expr("max(A[0, k] for k in 0..8)", with_a);
  REQUIRE(mx->as<Reduce>());
  CHECK(mx->as<Reduce>()->reduce_kind == ReduceKind::Max);
}

TEST_CASE("same-named variables are told apart") {
  Var i1 = Variable::make("i"), i2 = Variable::make("i");
  Buffer a = BufferNode::make("A", Index(), {i64(64)});
  Stmt s = For::make(i1, i64(0), i64(8), ForKind::Serial,
                     For::make(i2, i64(0), i64(8), ForKind::Serial, Store::make(a, {Expr(i1) * 8 + i2}, i64(0))));
  std::string text = to_string(s);
  CHECK(text ==
        "for i in 0..8 {\n"
        "  for i.1 in 0..8 {\n"
        "    A[i*8 + i.1] = 0\n"
        "  }\n"
        "}\n");
  // Sibling loops reuse the name; free variables keep theirs.
  Var n = Variable::make("n");
  Stmt siblings = Seq::make({For::make(i1, i64(0), n, ForKind::Serial, Store::make(a, {i1}, n)),
                             For::make(i2, i64(0), n, ForKind::Parallel, Store::make(a, {i2}, n))});
  CHECK(to_string(siblings) ==
        "for i in 0..n {\n"
        "  A[i] = n\n"
        "}\n"
        "parallel i in 0..n {\n"
        "  A[i] = n\n"
        "}\n");
  // A bound variable with the name of a free one gets a suffix.
  Var n_loop = Variable::make("n");
  Stmt shadow = For::make(n_loop, i64(0), n, ForKind::Serial, Store::make(a, {n_loop}, n));
  CHECK(to_string(shadow) == "for n.1 in 0..n {\n  A[n.1] = n\n}\n");
}

TEST_CASE("a scheduled matmul round-trips") {
  check_func_round_trip(
      "func matmul(A: f32[64, 32] input, B: f32[32, 16] input, C: f32[64, 16] output) {\n"
      "  parallel io in 0..8 {\n"
      "    for C.j in 0..16 {\n"
      "      for C.k in 0..32 {\n"
      "        unrolled ii in 0..8 {\n"
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
}

TEST_CASE("every statement kind round-trips") {
  check_func_round_trip(
      "func f(A: f32[N, 16] input, B: f32[N] output, S: i32[4] temp shared dims(2, 2)) {\n"
      "  allocate T: f32[4, 8] local {\n"
      "    vectorized v in 0..8 {\n"
      "      T[0, v] = 0.0f\n"
      "    }\n"
      "    T[ramp(0, 1, 4), broadcast(0, 4)] = broadcast(1.0f, 4)\n"
      "  }\n"
      "  bound(threadIdx.x) tx in 0..32 {\n"
      "    tensorized t in 2..6 {\n"
      "      let x = tx*4 + t in {\n"
      "        if (x < 3) {\n"
      "          B[x] = A[x, 0]\n"
      "        } else if (x < 5) {\n"
      "          B[x] = f32(x)\n"
      "        } else {\n"
      "          B[x] = select(x%2 == 0, exp(A[x, 1]), -1.5f)\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  for i in N..+N {\n"
      "  }\n"
      "  allocate U: i64[1] output global {\n"
      "    call my_dot16(address_of:u64(A[0, 0]), 16i32)\n"
      "  }\n"
      "  block init_B() {\n"
      "    B[0] = 0.0f\n"
      "  }\n"
      "}\n");
}

TEST_CASE("scoped attributes and stage tags round-trip") {
  check_func_round_trip(
      "func f(A: f32[64] input, B: f32[64] output) {\n"
      "  attr thread_extent(blockIdx.x) = 2 {\n"
      "    attr thread_extent(threadIdx.x) = 32 {\n"
      "      attr pragma(unroll_explicit) = 0 {\n"
      "        B[0] = A[0]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  attr virtual_thread(vt) = 4 {\n"
      "  }\n"
      "  attr dma_copy(A_inp) = 3 {\n"
      "  }\n"
      "}\n");
  const char* tagged =
      "func g(A: f32[4] input, B: f32[4] output) {\n"
      "  for i in 0..4 {\n"
      "    stage(B) B[i] = A[i]*2.0f\n"
      "  }\n"
      "}\n";
  LoweredFunc f = parse_func(tagged);
  const Store* st = f.body->as<For>()->body->as<Store>();
  REQUIRE(st);
  CHECK(st->stage == "B");
  CHECK(to_string(f, PrintOptions{true}) == tagged);
  // Off by default: the loops alone; and the tag is metadata, not structure.
  CHECK(to_string(f).find("stage(") == std::string::npos);
  CHECK(structurally_equal(f, parse_func(to_string(f))));
  // Rebuilding a store keeps its tag.
  Stmt rebuilt = st->with(st->buffer, st->indices, make_float(1.0));
  CHECK(rebuilt->as<Store>()->stage == "B");
  CHECK(parse_error_of("func f(A: f32[4] input) { attr colour(x) = 1 { } }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { attr pragma(x) = 1.0f { } }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { stage(A) for i in 0..4 { } }") == DiagId::SyntaxError);
}

TEST_CASE("parsed IR has the written types and structure") {
  LoweredFunc f = parse_func(
      "func g(X: i8[8] input, Y: i8[8] output) {\n"
      "  for i in 0..8 {\n"
      "    Y[i] = X[i] + 1\n"  // an unsuffixed literal takes the other operand's type
      "  }\n"
      "}\n");
  REQUIRE(f.args.size() == 2);
  CHECK(f.args[0]->role == BufferRole::Input);
  CHECK(f.arg_dims[0] == std::vector<int64_t>{8});
  const For* loop = f.body->as<For>();
  REQUIRE(loop);
  const Store* st = loop->body->as<Store>();
  REQUIRE(st);
  CHECK(st->value->type == Int(8));
  CHECK(to_string(st->value) == "X[i] + 1i8");
  CHECK(st->indices[0] == loop->var);
}

TEST_CASE("parse errors are located user errors") {
  CHECK(parse_error_of("func f(A: f32[4] input) { A[0] = 1.0f + }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { A[0] = q }") == DiagId::UnknownName);
  CHECK(parse_error_of("func f(A: f32[4] input) { B[0] = 1.0f }") == DiagId::UnknownName);
  CHECK(parse_error_of("func f(A: f32[4] input) { A[0, 1] = 1.0f }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { A[0] = 1i32 }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { A[0] = 1.0f + 2i32 }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { for i in 0..4 { A[i] = 1.0f }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { if (1) { } }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { A[0] = 1.0f } }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { A[0] = 3x }") == DiagId::SyntaxError);
  CHECK(parse_error_of("func f(A: f32[4] input) { A[0] = $ }") == DiagId::SyntaxError);
  try {
    parse_func("func f(A: f32[4] input) {\n  A[0] = 1.0f +\n}\n", "case.txt");
    FAIL("expected an error");
  } catch (const UserError& e) {
    CHECK(e.diag.loc.line == 3);
    CHECK(e.diag.loc.col == 1);
    CHECK(e.diag.message == "expected an expression but found '}'");
  }
}

TEST_CASE("structural equality is alpha-equivalence") {
  Buffer a = BufferNode::make("A", Float(32), {i64(64)});
  auto stmt = [&](const std::string& text) {
    ParseEnv env;
    env.buffers["A"] = a;
    return parse_stmt(text, env);
  };
  CHECK(structurally_equal(stmt("for i in 0..8 { A[i] = 1.0f }"), stmt("for j in 0..8 { A[j] = 1.0f }")));
  CHECK_FALSE(structurally_equal(stmt("for i in 0..8 { A[i] = 1.0f }"), stmt("for j in 0..8 { A[0] = 1.0f }")));
  CHECK_FALSE(structurally_equal(stmt("for i in 0..8 { A[i] = 1.0f }"), stmt("for i in 0..9 { A[i] = 1.0f }")));
  CHECK_FALSE(structurally_equal(stmt("for i in 0..8 { A[i] = 1.0f }"), stmt("parallel i in 0..8 { A[i] = 1.0f }")));
  CHECK_FALSE(structurally_equal(stmt("A[0] = 1.0f"), stmt("A[0] = 2.0f")));
  CHECK_FALSE(structurally_equal(stmt("A[0] = f32(1.0)"), stmt("A[0] = 1.0f")));
  // Bound variables correspond one-to-one.
  CHECK(structurally_equal(stmt("for i in 0..8 { for j in 0..8 { A[i*8 + j] = 0.0f } }"),
                           stmt("for a in 0..8 { for b in 0..8 { A[a*8 + b] = 0.0f } }")));
  CHECK_FALSE(structurally_equal(stmt("for i in 0..8 { for j in 0..8 { A[i*8 + j] = 0.0f } }"),
                                 stmt("for i in 0..8 { for j in 0..8 { A[j*8 + i] = 0.0f } }")));
  // Free variables correspond by name.
  CHECK(structurally_equal(stmt("A[n] = 0.0f"), stmt("A[n] = 0.0f")));
  CHECK_FALSE(structurally_equal(stmt("A[n] = 0.0f"), stmt("A[m] = 0.0f")));
  CHECK_FALSE(structurally_equal(stmt("A[n + m] = 0.0f"), stmt("A[m + n] = 0.0f")));
  // Lets, blocks and allocations bind too.
  CHECK(structurally_equal(stmt("let t = n*2 in { A[t] = 0.0f }"), stmt("let u = n*2 in { A[u] = 0.0f }")));
  CHECK(structurally_equal(stmt("block C(i: 0..8 = n) { A[i] = 0.0f }"), stmt("block C(j: 0..8 = n) { A[j] = 0.0f }")));
  CHECK_FALSE(structurally_equal(stmt("block C(i: 0..8 = n) { A[i] = 0.0f }"),
                                 stmt("block D(j: 0..8 = n) { A[j] = 0.0f }")));
  CHECK(structurally_equal(stmt("allocate T: f32[4] local { T[0] = 1.0f }"),
                           stmt("allocate T: f32[4] local { T[0] = 1.0f }")));
  CHECK_FALSE(structurally_equal(stmt("allocate T: f32[4] local { T[0] = 1.0f }"),
                                 stmt("allocate T: f32[4] shared { T[0] = 1.0f }")));
  // Nested Seqs compare flattened; an empty else equals none.
  Stmt s1 = stmt("A[0] = 1.0f");
  Stmt s2 = stmt("A[1] = 1.0f");
  Stmt nested = std::make_shared<const Seq>(std::vector<Stmt>{std::make_shared<const Seq>(std::vector<Stmt>{s1}), s2});
  CHECK(structurally_equal(nested, Seq::make({s1, s2})));
  CHECK(structurally_equal(IfThenElse::make(make_bool(true), s1, Seq::make({})), IfThenElse::make(make_bool(true), s1)));
  // Whole functions: the same text parsed twice.
  const char* text = "func f(A: f32[N] input, B: f32[N] output) { for i in 0..N { B[i] = A[i]*2.0f } }";
  CHECK(structurally_equal(parse_func(text), parse_func(text)));
  CHECK_FALSE(structurally_equal(parse_func(text),
                                 parse_func("func f(A: f32[N] input, B: f32[N] output) { for i in 0..N { B[i] = A[i] } }")));
}

TEST_CASE("an op prints in index notation") {
  OpDef op;
  op.name = "matmul";
  Buffer a = BufferNode::make("A", Float(32), {i64(64), i64(32)}, MemScope::Global, BufferRole::Input);
  Buffer b = BufferNode::make("B", Float(32), {i64(32), i64(16)}, MemScope::Global, BufferRole::Input);
  Buffer c = BufferNode::make("C", Float(32), {i64(64), i64(16)}, MemScope::Global, BufferRole::Output);
  op.inputs = {a, b};
  op.outputs = {c};
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Stage s;
  s.name = "C";
  s.buffer = c;
  s.axes = {{i, i64(0), i64(64)}, {j, i64(0), i64(16)}};
  s.body = Reduce::make(ReduceKind::Sum, Load::make(a, {i, k}) * Load::make(b, {k, j}), {{k, i64(0), i64(32)}});
  op.stages = {s};
  CHECK(to_string(op) ==
        "op matmul(A: f32[64, 32], B: f32[32, 16]) -> C {\n"
        "  C[i: 64, j: 16] = sum(A[i, k]*B[k, j] for k in 0..32)  # f32, output\n"
        "}\n");
}

// Random expressions of several types: print -> parse gives a structurally equal expression, and
// printing that gives the same text.
TEST_CASE("random expressions round-trip") {
  uint64_t state = 987654321;
  auto rnd = [&](int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return int((state >> 33) % uint64_t(n));
  };
  ParseEnv env;
  Expr x = parse_expr("x", env), y = parse_expr("y", env);
  const Type types[] = {Index(), Int(32), Int(8), UInt(16), Float(32), Float(64)};
  std::function<Expr(Type, int)> gen = [&](Type t, int depth) -> Expr {
    if (t.is_bool()) {
      Type u = types[rnd(6)];
      Expr a = gen(u, depth - 1), b = gen(u, depth - 1);
      switch (rnd(4)) {
        case 0: return a < b;
        case 1: return eq(a, b);
        case 2: return Not::make(a >= b);
        default: return logical_and(a <= b, a > b);
      }
    }
    if (depth <= 0 || rnd(4) == 0) {
      if (t.is_float()) return make_float((rnd(200) - 100) / 8.0, t);
      if (t == Index() && rnd(2)) return rnd(2) ? x : y;
      return IntImm::make(t, rnd(300) - 150);
    }
    Expr a = gen(t, depth - 1), b = gen(t, depth - 1);
    switch (rnd(10)) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return a / b;
      case 4: return t.is_float() ? a : a % b;
      case 5: return min(a, b);
      case 6: return max(a, b);
      case 7: return Select::make(gen(Bool(), depth - 1), a, b);
      case 8: return Cast::make(t, gen(types[rnd(6)], depth - 1));
      default: return t.is_integer() ? Binary::make(rnd(2) ? BinaryOp::Shl : BinaryOp::Shr, a, b) : a;
    }
  };
  for (int iter = 0; iter < 2000; ++iter) {
    Expr e = gen(rnd(3) == 0 ? Bool() : types[rnd(6)], 4);
    std::string text = to_string(e);
    Expr parsed = parse_expr(text, env);
    CHECK_MESSAGE(structurally_equal(e, parsed), text);
    CHECK(to_string(parsed) == text);
  }
}
