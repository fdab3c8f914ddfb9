// The annotation primitives' checks that no .tex file can reach: every loop extent a user can
// write is a compile-time constant, so "non-constant extent" is tested on a hand-built loop.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "lower/schedule/Primitives.h"

using namespace texc;

namespace {

// A state whose AST is `for n in 0..N: for L in 0..n: X[L] = 0` with N a free size variable.
ScheduleState state_with_symbolic_loop() {
  ScheduleState st;
  Var n = Variable::make("n"), l = Variable::make("L");
  Buffer x = BufferNode::make("X", Float(32), {make_int(64)}, MemScope::Global, BufferRole::Output);
  Stmt store = Store::make(x, {l}, make_float(0.0));
  st.func.name = "f";
  st.func.args = {x};
  st.func.body = For::make(n, make_int(0), make_int(8), ForKind::Serial,
                           For::make(l, make_int(0), n, ForKind::Serial, store));
  st.target = "interp";
  return st;
}

SchedStep step(const std::string& primitive, const std::string& loop) {
  SchedStep s;
  s.prim.primitive = primitive;
  SchedArg a;
  a.name = loop;
  s.prim.args = {a};
  s.int_args = {std::nullopt};
  return s;
}

}  // namespace

TEST_CASE("vectorize and unroll reject a loop whose extent is not a constant") {
  for (const char* prim : {"vectorize", "unroll"}) {
    ScheduleState st = state_with_symbolic_loop();
    try {
      apply_schedule(st, {step(prim, "L")});
      FAIL("expected a diagnostic for ", prim);
    } catch (const UserError& e) {
      CHECK(e.diag.id == DiagId::NonConstantExtent);
      CHECK(e.diag.message == std::string("cannot ") + prim + " loop 'L': its extent is not a constant");
    }
  }
}

TEST_CASE("vectorize and unroll accept the constant-extent loop") {
  ScheduleState st = state_with_symbolic_loop();
  apply_schedule(st, {step("unroll", "n")});
  CHECK(st.func.body->as<For>()->for_kind == ForKind::Unrolled);
}
