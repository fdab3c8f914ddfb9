// unroll(L): L is unrolled completely. Needs a constant extent.
#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"

namespace texc {

void apply_unroll(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  if (!is_const_int(l->extent)) throw_error(DiagId::NonConstantExtent, p.args[0].loc, "unroll", l->var->name);
  annotate_loop(st, step, ForKind::Unrolled, "");
}

}  // namespace texc
