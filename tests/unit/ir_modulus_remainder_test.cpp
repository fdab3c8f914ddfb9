// Unit tests of ir/ModulusRemainder: what is known of an index modulo constants, and the alignment
// of a vector access it proves.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ir/IROperators.h"
#include "ir/ModulusRemainder.h"

using namespace texc;

namespace {

bool is(ModulusRemainder mr, int64_t modulus, int64_t remainder) {
  return mr.modulus == modulus && mr.remainder == remainder;
}

}  // namespace

TEST_CASE("index expressions modulo constants") {
  Var xo = Variable::make("xo"), y = Variable::make("y");
  CHECK(is(modulus_remainder(make_int(12)), 0, 12));
  CHECK(is(modulus_remainder(xo), 1, 0));
  CHECK(is(modulus_remainder(Expr(xo) * 8), 8, 0));
  CHECK(is(modulus_remainder(Expr(xo) * 8 + 3), 8, 3));
  CHECK(is(modulus_remainder(Expr(xo) * 8 - 3), 8, 5));
  CHECK(is(modulus_remainder(Expr(xo) * 6 + Expr(xo) * 4), 2, 0));
  // y is known to be 4 mod 16: y * 2 + 1 is 9 mod 32.
  KnownModuli known{{y.get(), ModulusRemainder{16, 4}}};
  CHECK(is(modulus_remainder(Expr(y) * 2 + 1, known), 32, 9));
  // Division is not looked through.
  CHECK(is(modulus_remainder((Expr(xo) * 8) / 2), 1, 0));
}

TEST_CASE("the alignment a modulus proves") {
  CHECK(provable_alignment({8, 0}, 4, 64) == 32);  // xo * 8 floats
  CHECK(provable_alignment({8, 0}, 4, 16) == 16);  // capped by the base pointer's alignment
  CHECK(provable_alignment({8, 2}, 4, 64) == 8);   // xo * 8 + 2 floats
  CHECK(provable_alignment({1, 0}, 4, 64) == 4);   // unknown: the element's size
  CHECK(provable_alignment({0, 0}, 2, 64) == 64);  // exactly 0: the cap
}
