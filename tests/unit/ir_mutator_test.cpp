// IRMutator and mutate_with (ir/IRMutator.h): a rewrite of one node kind, the default descent for
// the rest, unchanged subtrees shared.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ir/IRMutator.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"

using namespace texc;

namespace {
const char* kFunc =
    "func f(A: f32[8, 16] input, B: f32[8, 16] output) {\n"
    "  for i in 0..8 {\n"
    "    vectorized j in 0..16 {\n"
    "      B[i, j] = A[i, j] * 2.0f\n"
    "    }\n"
    "  }\n"
    "  for k in 0..4 {\n"
    "    B[k, 0] = 0.0f\n"
    "  }\n"
    "}\n";
}  // namespace

TEST_CASE("mutate_with rewrites the nodes of one statement kind and shares what it leaves alone") {
  LoweredFunc f = parse_func(kFunc);
  int seen = 0;
  Stmt out = mutate_with<For>(f.body, [&](auto& m, const For* op, const Stmt& self) {
    ++seen;
    if (op->for_kind != ForKind::Vectorized) return m.descend(op, self);
    return op->with_kind(ForKind::Serial);
  });
  CHECK(seen == 3);  // i, j (reached through the default descent into i) and k
  const Seq* before = f.body->as<Seq>();
  const Seq* after = out->as<Seq>();
  REQUIRE(after != nullptr);
  CHECK(after->stmts[0] != before->stmts[0]);  // i's body changed
  CHECK(after->stmts[1] == before->stmts[1]);  // k's nest is the same node
  CHECK(to_string(out).find("vectorized") == std::string::npos);
  CHECK(to_string(out).find("for j in 0..16") != std::string::npos);
}

TEST_CASE("mutate_with over an expression kind, from a statement or an expression root") {
  LoweredFunc f = parse_func(kFunc);
  auto double_to_triple = [](auto& m, const FloatImm* op, const Expr& self) {
    return op->value == 2.0 ? make_float(3.0) : m.descend(op, self);
  };
  Stmt out = mutate_with<FloatImm>(f.body, double_to_triple);
  CHECK(to_string(out).find("A[i, j]*3.0f") != std::string::npos);

  Expr e = Binary::make(BinaryOp::Add, make_float(2.0), make_float(1.0));
  CHECK(to_string(mutate_with<FloatImm>(e, double_to_triple)) == "3.0f + 1.0f");
  // Nothing to rewrite: the root comes back as it was.
  Expr one = Binary::make(BinaryOp::Mul, make_float(1.0), make_float(5.0));
  CHECK(mutate_with<FloatImm>(one, double_to_triple) == one);
}
