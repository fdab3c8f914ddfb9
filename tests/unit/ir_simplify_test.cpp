// Unit tests of ir/Simplify.h: constant folding with the IR's integer semantics for every width,
// algebraic identities and canonical forms, bound-based folding, and statement simplification.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>

#include <functional>

#include "ir/ConstEval.h"
#include "ir/ExprOrder.h"
#include "ir/IROperators.h"
#include "ir/IRPrinter.h"
#include "ir/Simplify.h"

using namespace texc;

namespace {
const Variable* V(const Expr& e) { return e->as<Variable>(); }
Var W(const Expr& e) { return std::static_pointer_cast<const Variable>(e); }
Expr i64(int64_t v) { return make_int(v); }

int64_t folded(const Expr& e) {
  Expr s = simplify(e);
  int64_t v = 0;
  REQUIRE_MESSAGE(is_const_int(s, &v), "did not fold to a constant");
  return v;
}

// True if simplify(e) is deeply equal to expected.
bool simplifies_to(const Expr& e, const Expr& expected, const VarIntervals& vars = {}) {
  return same_expr(simplify(e, vars), expected);
}
}  // namespace

TEST_CASE("floor division and modulo of constants, every signed width") {
  for (int bits : {8, 16, 32, 64}) {
    CAPTURE(bits);
    Type t = Int(bits);
    auto c = [&](int64_t v) { return IntImm::make(t, v); };
    CHECK(folded(c(7) / c(2)) == 3);
    CHECK(folded(c(-7) / c(2)) == -4);
    CHECK(folded(c(7) / c(-2)) == -4);
    CHECK(folded(c(-7) / c(-2)) == 3);
    CHECK(folded(c(-8) / c(2)) == -4);
    CHECK(folded(c(7) % c(3)) == 1);
    CHECK(folded(c(-7) % c(3)) == 2);
    CHECK(folded(c(7) % c(-3)) == -2);
    CHECK(folded(c(-7) % c(-3)) == -1);
    CHECK(folded(c(-6) % c(3)) == 0);
    // The folded constant has the operands' type.
    CHECK(simplify(c(-7) / c(2))->type == t);
  }
}

TEST_CASE("wrap-around at the declared width") {
  CHECK(folded(IntImm::make(Int(8), 127) + IntImm::make(Int(8), 1)) == -128);
  CHECK(folded(IntImm::make(Int(8), -128) / IntImm::make(Int(8), -1)) == -128);
  CHECK(folded(IntImm::make(Int(16), 300) * IntImm::make(Int(16), 300)) == int16_t(90000));
  CHECK(folded(IntImm::make(Int(32), 2147483647) + IntImm::make(Int(32), 1)) == -2147483648LL);
  CHECK(folded(IntImm::make(UInt(8), 250) + IntImm::make(UInt(8), 10)) == 4);
  CHECK(folded(IntImm::make(UInt(8), 3) - IntImm::make(UInt(8), 5)) == 254);
  // Unsigned division and modulo are unsigned.
  CHECK(folded(IntImm::make(UInt(8), 200) / IntImm::make(UInt(8), 3)) == 66);
  CHECK(folded(IntImm::make(UInt(32), 4294967295LL) % IntImm::make(UInt(32), 10)) == 5);
  CHECK(folded(Binary::make(BinaryOp::Shl, IntImm::make(UInt(16), 1), IntImm::make(UInt(16), 15))) == 32768);
  CHECK(folded(Binary::make(BinaryOp::Shr, IntImm::make(Int(8), -16), IntImm::make(Int(8), 2))) == -4);
  CHECK(folded(Binary::make(BinaryOp::Shl, IntImm::make(Int(8), 64), IntImm::make(Int(8), 1))) == -128);
  // Division by a constant zero is not folded.
  Expr by_zero = simplify(i64(1) / i64(0));
  CHECK(by_zero->as<Binary>());
  // Comparisons of unsigned values compare them as unsigned.
  CHECK(folded(IntImm::make(UInt(8), 200) > IntImm::make(UInt(8), 100)) == 1);
  CHECK(folded(IntImm::make(UInt(64), -1) > IntImm::make(UInt(64), 1)) == 1);
  // Symbolic arithmetic in narrow types still folds constants modulo the width.
  Expr b = Variable::make("b", UInt(8));
  CHECK(simplifies_to(b + IntImm::make(UInt(8), 255) + IntImm::make(UInt(8), 1), b));
}

TEST_CASE("casts of constants") {
  CHECK(folded(Cast::make(Int(8), i64(300))) == 44);
  CHECK(folded(Cast::make(UInt(8), i64(-1))) == 255);
  CHECK(folded(Cast::make(Int(32), make_float(-2.75))) == -2);
  CHECK(folded(Cast::make(Bool(), i64(5))) == 1);
  Expr f = simplify(Cast::make(Float(32), i64(3)));
  REQUIRE(f->as<FloatImm>());
  CHECK(f->as<FloatImm>()->value == 3.0);
  CHECK(f->type == Float(32));
  // Out-of-range float to int is left alone.
  CHECK(simplify(Cast::make(Int(8), make_float(1000.0)))->as<Cast>());
  Expr x = Variable::make("x");
  CHECK(simplify(Cast::make(Index(), x)) == x);
}

TEST_CASE("floating point: fold constants only, never reassociate") {
  Expr s = simplify(make_float(1.5) + make_float(2.25));
  REQUIRE(s->as<FloatImm>());
  CHECK(s->as<FloatImm>()->value == 3.75);
  // f32 results are rounded to f32.
  Expr third = simplify(make_float(1.0) / make_float(3.0));
  CHECK(third->as<FloatImm>()->value == double(1.0f / 3.0f));
  Expr third64 = simplify(make_float(1.0, Float(64)) / make_float(3.0, Float(64)));
  CHECK(third64->as<FloatImm>()->value == 1.0 / 3.0);
  Expr x = Variable::make("x", Float(32));
  Expr e = (x + make_float(1.0)) + make_float(2.0);
  CHECK(same_expr(simplify(e), e));
  Expr z = x * make_float(0.0);
  CHECK(same_expr(simplify(z), z));  // x*0 is not 0 for NaN or inf
  CHECK(same_expr(simplify(x - x), x - x));
  CHECK(folded(make_float(1.0) < make_float(2.0)) == 1);
  // !(a < b) is not a >= b for floats (NaN).
  Expr n = Not::make(x < make_float(1.0));
  CHECK(same_expr(simplify(n), n));
}

TEST_CASE("integer identities and the linear canonical form") {
  Expr x = Variable::make("x"), y = Variable::make("y"), io = Variable::make("io"), ii = Variable::make("ii");
  CHECK(simplify(x + 0) == x);
  CHECK(simplify(x * 1) == x);
  CHECK(folded(x * 0) == 0);
  CHECK(folded(x - x) == 0);
  CHECK(folded((x + y) - (y + x)) == 0);
  CHECK(simplifies_to((x * 2) * 4, x * 8));
  CHECK(simplifies_to((x + 3) + 4, x + 7));
  CHECK(simplifies_to((x + 3) - 5, x - 2));
  CHECK(simplifies_to(3 + x, x + 3));
  CHECK(simplifies_to(y + x, x + y));
  CHECK(simplifies_to(ii + io * 8, io * 8 + ii));
  CHECK(simplifies_to((x + y) * 4, x * 4 + y * 4));
  CHECK(simplifies_to(x - y * 2 + y * 3, x + y));
  CHECK(simplifies_to(10 - x, 10 - x));
  CHECK(simplifies_to(x / 1, x));
  CHECK(folded(x % 1) == 0);
  CHECK(simplifies_to(y * x, x * y));
  CHECK(simplifies_to(min(i64(3), x), min(x, i64(3))));
  CHECK(simplifies_to(min(min(x, i64(5)), i64(3)), min(x, i64(3))));
  CHECK(simplifies_to(max(x, x), x));
}

TEST_CASE("index division and modulo by constants") {
  Expr x = Variable::make("x"), y = Variable::make("y");
  // Exact for floor semantics: no bounds needed.
  CHECK(simplifies_to((x * 8 + y) / 8, x + y / 8));
  CHECK(simplifies_to((x * 8 + y) % 8, y % 8));
  CHECK(simplifies_to((x * 8 + 9) / 8, x + 1));
  CHECK(simplifies_to((x * 8 - 1) % 8, i64(7)));
  CHECK(simplifies_to((x * 9) % 8, x % 8));
  CHECK(simplifies_to((x / 4) / 2, x / 8));
  CHECK(simplifies_to((x % 8) % 4, x % 4));
  // With bounds: y in [0, 8).
  VarIntervals vars{{V(y), Interval::range(0, 7)}};
  CHECK(simplifies_to((x * 8 + y) / 8, x, vars));
  CHECK(simplifies_to((x * 8 + y) % 8, y, vars));
  CHECK(simplifies_to(y / 8, i64(0), vars));
  CHECK(simplifies_to(y % 8, y, vars));
  CHECK(simplifies_to((y + 8) / 8, i64(1), vars));
  // Negative dividends: -1/8 is -1, -1%8 is 7.
  VarIntervals neg{{V(y), Interval::range(-8, -1)}};
  CHECK(simplifies_to(y / 8, i64(-1), neg));
  CHECK(simplifies_to(y % 8, y + 8, neg));
  // A bounded divisor.
  Expr d = Variable::make("d");
  VarIntervals dv{{V(d), Interval::range(10, 20)}, {V(y), Interval::range(0, 7)}};
  CHECK(simplifies_to(y / d, i64(0), dv));
  CHECK(simplifies_to(y % d, y, dv));
}

TEST_CASE("the index of a fused loop folds back: (x / c)*c + x % c") {
  Expr x = Variable::make("x"), y = Variable::make("y");
  CHECK(simplifies_to((x / 8) * 8 + x % 8, x));
  CHECK(simplifies_to(x % 8 + (x / 8) * 8 + y, x + y));
  CHECK(simplifies_to((x / 8) * 16 + (x % 8) * 2, x * 2));
  // Nested: f = ((n*3 + c)*5 + h)*7 + w fused, then split by 16.
  CHECK(simplifies_to((x / 105) * 105 + (x % 105) / 7 * 7 + x % 7, x));
  // The modulo's argument in the simplifier's form: (y*16 + x) % 7 is (y*2 + x) % 7.
  CHECK(simplifies_to((y * 16 + x) / 7 * 7 + (y * 16 + x) % 7, y * 16 + x));
  // Not a pair: different divisors or coefficients stay.
  CHECK(!same_expr(simplify((x / 8) * 8 + x % 4), x));
  CHECK(!same_expr(simplify((x / 8) * 4 + x % 8), x));
}

TEST_CASE("bound-based folding of comparisons, min, max, select, logic") {
  Expr o = Variable::make("o"), i = Variable::make("i"), x = Variable::make("x");
  VarIntervals vars{{V(o), Interval::range(0, 7)}, {V(i), Interval::range(0, 7)}};
  CHECK(folded(simplify(o * 8 + i < 64, vars)) == 1);
  CHECK(folded(simplify(o * 8 + i >= 64, vars)) == 0);
  CHECK_FALSE(simplify(o * 8 + i < 60, vars)->as<IntImm>());
  CHECK(simplifies_to(min(o, i64(10)), o, vars));
  CHECK(simplifies_to(max(o, i64(10)), i64(10), vars));
  CHECK(simplifies_to(min(x, x + 1), x));
  CHECK(simplifies_to(max(x - 1, x), x));
  CHECK(folded(x + 1 > x) == 1);
  CHECK(folded(eq(x * 2 + 1, x * 2)) == 0);
  CHECK(simplifies_to(x + 1 < 5, x < 4));
  CHECK(simplifies_to(Select::make(o < 8, x, x + 1), x, vars));
  CHECK(simplifies_to(Select::make(x < 3, x, x), x));
  Expr c = x < 3;
  CHECK(simplifies_to(logical_and(c, make_bool(true)), c));
  CHECK(folded(logical_and(c, make_bool(false))) == 0);
  CHECK(folded(logical_or(c, make_bool(true))) == 1);
  CHECK(simplifies_to(logical_or(c, make_bool(false)), c));
  CHECK(simplifies_to(Not::make(Not::make(c)), c));
  CHECK(simplifies_to(Not::make(c), x >= 3));
  CHECK(simplifies_to(logical_and(c, c), c));
  // Narrow types fold comparisons from the operands' bounds.
  Expr s = Variable::make("s", Int(8));
  CHECK(folded(s <= IntImm::make(Int(8), 127)) == 1);
  CHECK(folded(s >= IntImm::make(Int(8), -128)) == 1);
  CHECK_FALSE(simplify(s < IntImm::make(Int(8), 127))->as<IntImm>());
  CHECK(folded(Cast::make(Int(32), s) < IntImm::make(Int(32), 200)) == 1);
}

TEST_CASE("lets in expressions") {
  Expr x = Variable::make("x"), l = Variable::make("l");
  CHECK(simplifies_to(Let::make(W(l), i64(3), l + x), x + 3));
  CHECK(simplifies_to(Let::make(W(l), x * x, x), x));
  Expr kept = Let::make(W(l), x * x, l + l);
  CHECK(simplifies_to(kept, Let::make(W(l), x * x, l * 2)));
}

TEST_CASE("statements: loops, ifs, lets, seqs") {
  Buffer a = BufferNode::make("A", Float(32), {i64(64)});
  Expr i = Variable::make("i"), o = Variable::make("o"), j = Variable::make("j");
  Stmt store = Store::make(a, {o * 8 + i}, make_float(1.0));
  // The guard of a dividing split is removed.
  Stmt guarded = For::make(W(o), i64(0), i64(8), ForKind::Serial,
                           For::make(W(i), i64(0), i64(8), ForKind::Serial,
                                     IfThenElse::make(o * 8 + i < 64, store)));
  Stmt s = simplify(guarded);
  const For* outer = s->as<For>();
  REQUIRE(outer);
  const For* inner = outer->body->as<For>();
  REQUIRE(inner);
  CHECK(inner->body->as<Store>());

  // Extent 1: the loop disappears and its variable becomes the min.
  Stmt one = simplify(For::make(W(j), i64(5), i64(1), ForKind::Serial, Store::make(a, {j}, make_float(2.0))));
  REQUIRE(one->as<Store>());
  CHECK(is_const_int(one->as<Store>()->indices[0], int64_t(5)));
  // ...except for thread-bound loops.
  Stmt bound = For::make(W(j), i64(0), i64(1), ForKind::ThreadBound, Store::make(a, {j}, make_float(2.0)), "threadIdx.x");
  CHECK(simplify(bound)->as<For>());

  // Extent 0 and empty bodies are no-ops; Seqs drop them.
  Stmt empty_loop = For::make(W(j), i64(0), i64(0), ForKind::Serial, Store::make(a, {j}, make_float(2.0)));
  CHECK(is_no_op(simplify(empty_loop)));
  Stmt seq = Seq::make({empty_loop, Store::make(a, {i64(0)}, make_float(3.0)), Evaluate::make(i64(0))});
  CHECK(simplify(seq)->as<Store>());
  CHECK(is_no_op(simplify(For::make(W(j), i64(0), i64(4), ForKind::Serial, make_no_op()))));

  // Provably false conditions take the else branch.
  Stmt with_else = For::make(W(j), i64(0), i64(4), ForKind::Serial,
                             IfThenElse::make(j >= 4, Store::make(a, {j}, make_float(1.0)),
                                              Store::make(a, {j}, make_float(2.0))));
  Stmt we = simplify(with_else);
  REQUIRE(we->as<For>());
  CHECK(we->as<For>()->body->as<Store>());

  // Facts of an if condition are known in its branches.
  Stmt facts = For::make(W(j), i64(0), i64(100), ForKind::Serial,
                         IfThenElse::make(j < 10, IfThenElse::make(j < 20, Store::make(a, {j}, make_float(1.0))),
                                          IfThenElse::make(j >= 10, Store::make(a, {j}, make_float(2.0)))));
  Stmt f = simplify(facts);
  const IfThenElse* top = f->as<For>()->body->as<IfThenElse>();
  REQUIRE(top);
  CHECK(top->then_case->as<Store>());
  REQUIRE(top->else_case);
  CHECK(top->else_case->as<Store>());

  // Lets of constants are substituted; loop ranges are used in bodies.
  Expr l = Variable::make("l");
  Stmt let = LetStmt::make(W(l), i64(4), For::make(W(j), i64(0), l, ForKind::Serial, Store::make(a, {j % 8}, make_float(1.0))));
  Stmt ls = simplify(let);
  const For* lf = ls->as<For>();
  REQUIRE(lf);
  CHECK(is_const_int(lf->extent, int64_t(4)));
  CHECK(lf->body->as<Store>()->indices[0] == lf->var);
}

// Random index expressions: the simplified form must evaluate to the same value as the original
// for every assignment of the variables within their declared ranges.
TEST_CASE("simplification preserves values (random expressions)") {
  uint64_t state = 12345;
  auto rnd = [&](int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return int((state >> 33) % uint64_t(n));
  };
  Expr x = Variable::make("x"), y = Variable::make("y"), z = Variable::make("z");
  std::vector<Expr> vars = {x, y, z};
  VarIntervals ranges{{V(x), Interval::range(0, 7)}, {V(y), Interval::range(-4, 4)}, {V(z), Interval::range(0, 31)}};
  std::function<Expr(int)> gen = [&](int depth) -> Expr {
    if (depth == 0 || rnd(4) == 0) return rnd(2) ? vars[rnd(3)] : i64(rnd(19) - 6);
    Expr a = gen(depth - 1), b = gen(depth - 1);
    switch (rnd(9)) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * i64(rnd(7) - 2);
      case 3: return a / i64(rnd(2) ? rnd(8) + 1 : -(rnd(4) + 1));
      case 4: return a % i64(rnd(8) + 1);
      case 5: return min(a, b);
      case 6: return max(a, b);
      case 7: return Select::make(a < b, a, b + 1);
      default: return a * b;
    }
  };
  int checked = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Expr e = gen(4);
    Expr s = simplify(e, ranges);
    for (int trial = 0; trial < 8; ++trial) {
      VarValues values{{V(x), rnd(8)}, {V(y), rnd(9) - 4}, {V(z), rnd(32)}};
      auto before = eval_int(e, values), after = eval_int(s, values);
      REQUIRE(before.has_value());
      REQUIRE(after.has_value());
      if (*before != *after) {
        FAIL(to_string(e) << " -> " << to_string(s) << " at x=" << values[V(x)] << " y=" << values[V(y)] << " z=" << values[V(z)] << ": " << *before
                  << " != " << *after);
      }
      ++checked;
    }
  }
  CHECK(checked == 24000);
}
