// f = fuse(L1, L2): two perfectly nested loops (L2 the only statement in L1's body) become one
// loop over E1*E2 iterations; L1 = f / E2 and L2 = f % E2 (plus their mins). A reduction loop
// cannot be fused with a spatial one.
#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/schedule/Primitives.h"

namespace texc {

void apply_fuse(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 2, 2, 1);
  const For* a = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  const For* b = st.loop(loop_name_arg(step, 1), p.args[1].loc);
  st.check_fresh_name(p.results[0], p.result_locs.empty() ? p.loc : p.result_locs[0]);
  if (b->body.get() == a) std::swap(a, b);  // fuse(inner, outer) is accepted too
  if (a->body.get() != b)
    throw_error(DiagId::FuseNotAdjacent, p.loc, a->var->name, b->var->name, b->var->name, a->var->name);
  if (is_reduction_loop(a) != is_reduction_loop(b))
    throw_error(DiagId::FuseMixedKinds, p.loc, a->var->name, b->var->name);
  if (uses_var(b->min, a->var.get()) || uses_var(b->extent, a->var.get()))
    throw_error(DiagId::ScheduleError, p.loc, "cannot fuse '" + a->var->name + "' and '" + b->var->name +
                                                  "': the bounds of the inner loop depend on the outer");
  st.record_replaced(a->var->name, "fuse", p.results);
  st.record_replaced(b->var->name, "fuse", p.results);
  Var fused = Variable::make(p.results[0], a->var->type);
  Expr outer_value = fused / b->extent, inner_value = fused % b->extent;
  if (!is_const_int(a->min, int64_t(0))) outer_value = outer_value + a->min;
  if (!is_const_int(b->min, int64_t(0))) inner_value = inner_value + b->min;
  Stmt body = substitute(b->body, VarMap{{a->var.get(), outer_value}, {b->var.get(), inner_value}});
  st.replace(a, For::make(fused, make_int(0), simplify(a->extent * b->extent), ForKind::Serial, body));
}

}  // namespace texc
