// Unit tests of ir/Bounds.h: numeric intervals of integer expressions, symbolic bounds, can_prove.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ir/Bounds.h"
#include "ir/IROperators.h"
#include "ir/Simplify.h"

using namespace texc;

namespace {
const Variable* V(const Expr& e) { return e->as<Variable>(); }
Var W(const Expr& e) { return std::static_pointer_cast<const Variable>(e); }
Expr i64(int64_t v) { return make_int(v); }
}  // namespace

TEST_CASE("constants and variables") {
  Expr x = Variable::make("x"), y = Variable::make("y");
  CHECK(bounds_of(i64(5)) == Interval::point(5));
  CHECK(bounds_of(x).is_everything());
  VarIntervals vars{{V(x), Interval::range(0, 7)}};
  CHECK(bounds_of(x, vars) == Interval::range(0, 7));
  CHECK(bounds_of(y, vars).is_everything());
  Expr small = Variable::make("s", Int(8));
  CHECK(bounds_of(small) == Interval::range(-128, 127));
  CHECK(bounds_of(Variable::make("b", Bool())) == Interval::range(0, 1));
}

TEST_CASE("add, sub and mul with sign cases") {
  Expr x = Variable::make("x"), y = Variable::make("y");
  VarIntervals vars{{V(x), Interval::range(-3, 5)}, {V(y), Interval::range(2, 4)}};
  CHECK(bounds_of(x + y, vars) == Interval::range(-1, 9));
  CHECK(bounds_of(x - y, vars) == Interval::range(-7, 3));
  CHECK(bounds_of(x * y, vars) == Interval::range(-12, 20));
  CHECK(bounds_of(x * -2, vars) == Interval::range(-10, 6));
  CHECK(bounds_of(x * x, vars) == Interval::range(-15, 25));
  // One unbounded side stays unbounded, the other is kept.
  Expr u = Variable::make("u");
  VarIntervals half{{V(u), Interval{0, std::nullopt}}};
  Interval r = bounds_of(u + 3, half);
  CHECK(r.min == 3);
  CHECK(!r.max);
  Interval neg = bounds_of(u * -1, half);
  CHECK(neg.max == 0);
  CHECK(!neg.min);
  CHECK(bounds_of(u * 0, half) == Interval::point(0));
}

TEST_CASE("floor division and modulo") {
  Expr x = Variable::make("x"), d = Variable::make("d");
  VarIntervals vars{{V(x), Interval::range(-9, 17)}, {V(d), Interval::range(2, 4)}};
  CHECK(bounds_of(x / 4, vars) == Interval::range(-3, 4));
  CHECK(bounds_of(x / -4, vars) == Interval::range(-5, 2));
  CHECK(bounds_of(x % 4, vars) == Interval::range(0, 3));
  CHECK(bounds_of(x % -4, vars) == Interval::range(-3, 0));
  // Within one period the modulo keeps the interval.
  VarIntervals narrow{{V(x), Interval::range(9, 11)}};
  CHECK(bounds_of(x % 8, narrow) == Interval::range(1, 3));
  // A bounded positive divisor.
  CHECK(bounds_of(x / d, vars) == Interval::range(-5, 8));
  CHECK(bounds_of(x % d, vars) == Interval::range(0, 3));
  // A divisor that may be zero gives nothing.
  Expr z = Variable::make("z");
  VarIntervals zero{{V(z), Interval::range(0, 3)}, {V(x), Interval::range(0, 10)}};
  CHECK(bounds_of(x / z, zero).is_everything());
}

TEST_CASE("min, max, select, let, shifts") {
  Expr x = Variable::make("x"), y = Variable::make("y");
  VarIntervals vars{{V(x), Interval::range(0, 10)}, {V(y), Interval::range(5, 6)}};
  CHECK(bounds_of(min(x, y), vars) == Interval::range(0, 6));
  CHECK(bounds_of(max(x, y), vars) == Interval::range(5, 10));
  CHECK(bounds_of(Select::make(x < 3, y, i64(20)), vars) == Interval::range(5, 20));
  CHECK(bounds_of(Select::make(y < 7, x, i64(20)), vars) == Interval::range(0, 10));
  Expr l = Variable::make("l");
  CHECK(bounds_of(Let::make(W(l), x * 2, l + 1), vars) == Interval::range(1, 21));
  CHECK(bounds_of(Binary::make(BinaryOp::Shl, x, i64(2)), vars) == Interval::range(0, 40));
  CHECK(bounds_of(Binary::make(BinaryOp::Shr, x - 5, i64(1)), vars) == Interval::range(-3, 2));
}

TEST_CASE("casts and narrow types") {
  Expr x = Variable::make("x");
  VarIntervals vars{{V(x), Interval::range(0, 300)}};
  // Narrowing that may wrap gives the type's range; widening keeps the bounds.
  CHECK(bounds_of(Cast::make(Int(8), x), vars) == Interval::range(-128, 127));
  CHECK(bounds_of(Cast::make(Int(16), x), vars) == Interval::range(0, 300));
  Expr b = Variable::make("b", UInt(8));
  CHECK(bounds_of(Cast::make(Int(32), b)) == Interval::range(0, 255));
  // u8 arithmetic that may wrap.
  CHECK(bounds_of(b + IntImm::make(UInt(8), 1)) == Interval::range(0, 255));
  Expr s = Variable::make("s", Int(8));
  VarIntervals sv{{V(s), Interval::range(0, 10)}};
  CHECK(bounds_of(s + IntImm::make(Int(8), 1), sv) == Interval::range(1, 11));
  CHECK(bounds_of(s * IntImm::make(Int(8), 100), sv) == Interval::range(-128, 127));
}

TEST_CASE("comparisons and can_prove") {
  Expr o = Variable::make("o"), i = Variable::make("i");
  VarIntervals vars{{V(o), Interval::range(0, 7)}, {V(i), Interval::range(0, 7)}};
  CHECK(bounds_of(o * 8 + i < 64, vars) == Interval::point(1));
  CHECK(bounds_of(o * 8 + i < 63, vars) == Interval::range(0, 1));
  CHECK(can_prove(o * 8 + i < 64, vars));
  CHECK_FALSE(can_prove(o * 8 + i < 63, vars));
  CHECK_FALSE(can_prove(o < 5, vars));
  // Needs the simplifier: x - x is 0 whatever x is.
  Expr x = Variable::make("x");
  CHECK(can_prove(eq(x - x, i64(0))));
  CHECK(can_prove(x + 1 > x));
  CHECK_FALSE(can_prove(x > 0));
  CHECK(can_prove(logical_and(o >= 0, i <= 7), vars));
}

TEST_CASE("symbolic bounds relax only the listed variables") {
  Expr io = Variable::make("io"), ii = Variable::make("ii"), n = Variable::make("n");
  SymVarIntervals relaxed{{V(ii), {i64(0), i64(7)}}};
  SymInterval r = sym_bounds_of(io * 8 + ii, relaxed);
  REQUIRE(r.is_bounded());
  CHECK(simplify(r.min - io * 8)->as<IntImm>());
  CHECK(is_const_int(simplify(r.min - io * 8), int64_t(0)));
  CHECK(is_const_int(simplify(r.max - io * 8), int64_t(7)));
  // Relax over a symbolic range.
  SymVarIntervals sym{{V(io), {i64(0), n - 1}}, {V(ii), {i64(0), i64(7)}}};
  SymInterval s = sym_bounds_of(io * 8 + ii, sym);
  REQUIRE(s.is_bounded());
  CHECK(is_const_int(s.min, int64_t(0)));
  CHECK(is_const_int(simplify(s.max - n * 8), int64_t(-1)));
  // Division and modulo by constants.
  SymInterval d = sym_bounds_of((io * 8 + ii) / 4, sym);
  CHECK(is_const_int(d.min, int64_t(0)));
  CHECK(is_const_int(simplify(d.max - n * 2), int64_t(-1)));
  SymInterval m = sym_bounds_of(ii % 4, relaxed);
  CHECK(is_const_int(m.min, int64_t(0)));
  CHECK(is_const_int(m.max, int64_t(3)));
  // A variable that is not relaxed stays.
  SymInterval kept = sym_bounds_of(io + 1, relaxed);
  CHECK(kept.min == kept.max);
  // Negative scale swaps the sides.
  SymInterval neg = sym_bounds_of(n - ii, relaxed);
  CHECK(is_const_int(simplify(neg.min - n), int64_t(-7)));
  CHECK(is_const_int(simplify(neg.max - n), int64_t(0)));
  // A load is unbounded when it depends on a relaxed variable.
  Buffer a = BufferNode::make("A", Index(), {i64(8)});
  SymInterval ld = sym_bounds_of(Load::make(a, {ii}), relaxed);
  CHECK(ld.min.get() == nullptr);
  CHECK(ld.max.get() == nullptr);
}
