// Unit tests of ir/LinearForm.h: the one linear form the simplifier and the lowering passes share
// (like terms, canonical order, wrap-around and exactness, linear_coefficient).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ir/IROperators.h"
#include "ir/IRPrinter.h"
#include "ir/LinearForm.h"

using namespace texc;

namespace {
Expr i64(int64_t v) { return make_int(v); }
const Variable* V(const Expr& e) { return e->as<Variable>(); }
}  // namespace

TEST_CASE("like terms combine and the canonical expression orders them") {
  Expr x = Variable::make("x"), y = Variable::make("y"), io = Variable::make("io"), ii = Variable::make("ii");
  LinearForm l = linear_form(x * i64(2) + y - x + i64(3));
  CHECK(l.exact);
  REQUIRE(l.terms.size() == 2);
  CHECK(l.constant == 3);
  CHECK(to_string(l.to_expr()) == "x + y + 3");
  CHECK(to_string(linear_form(ii + io * i64(8) + i64(3) - i64(1)).to_expr()) == "io*8 + ii + 2");
  CHECK(to_string(linear_form(i64(3) - x * i64(2)).to_expr()) == "3 - x*2");
  CHECK(to_string(linear_form((x + y) * i64(4) - y * i64(4)).to_expr()) == "x*4");
  CHECK(to_string(linear_form(x - x).to_expr()) == "0");
  // Two variables of one name are different atoms.
  Expr x2 = Variable::make("x");
  CHECK(linear_form(x + x2).terms.size() == 2);
}

TEST_CASE("coefficients wrap at the type's width and the form says it is then not exact") {
  Expr x = Variable::make("x", Int(32));
  auto c32 = [](int64_t v) { return IntImm::make(Int(32), v); };
  LinearForm l = linear_form(x * c32(65536) * c32(65536) + c32(1));
  CHECK(!l.exact);
  CHECK(l.terms.empty());  // x*2^32 wraps to 0 in i32
  CHECK(l.constant == 1);
  LinearForm fits = linear_form(x * c32(65536) * c32(16384));
  CHECK(fits.exact);
  REQUIRE(fits.terms.size() == 1);
  CHECK(fits.terms[0].coeff == int64_t(1) << 30);
  LinearForm big = linear_form(Variable::make("z") * i64(int64_t(1) << 62) * i64(4));
  CHECK(!big.exact);
}

TEST_CASE("linear_coefficient: the coefficient of one variable, or nullopt when it is not linear") {
  Expr v = Variable::make("v"), w = Variable::make("w");
  CHECK(linear_coefficient(v, V(v)) == 1);
  CHECK(linear_coefficient(v * i64(3) + w, V(v)) == 3);
  CHECK(linear_coefficient((v + w) * i64(4) - v, V(v)) == 3);
  CHECK(linear_coefficient(i64(2) * (w - v), V(v)) == -2);
  CHECK(linear_coefficient(w * i64(5) + i64(7), V(v)) == 0);
  CHECK(linear_coefficient(w / i64(2) + v, V(v)) == 1);
  CHECK(!linear_coefficient(v / i64(2), V(v)));
  CHECK(!linear_coefficient(v * w, V(v)));
  CHECK(!linear_coefficient(min(v, i64(3)) + v, V(v)));
  // Past 2^40, or wrapped on the way, the coefficient is not trusted.
  CHECK(linear_coefficient(v * i64(int64_t(1) << 40), V(v)) == int64_t(1) << 40);
  CHECK(!linear_coefficient(v * i64(int64_t(1) << 41), V(v)));
  CHECK(!linear_coefficient(v * i64(int64_t(1) << 62) * i64(8) + v, V(v)));
}
