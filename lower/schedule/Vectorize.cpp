// vectorize(L): L becomes vector lanes. Needs a constant extent; not for reduction loops (the
// lanes would race on one accumulator; TVM once computed wrong sums this way).
#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"

namespace texc {

void apply_vectorize(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  if (!is_const_int(l->extent)) throw_error(DiagId::NonConstantExtent, p.args[0].loc, "vectorize", l->var->name);
  std::string stage;
  if (is_reduction_loop(l, &stage)) throw_error(DiagId::ReductionLoopAnnotation, p.args[0].loc, "vectorize", l->var->name, stage);
  annotate_loop(st, step, ForKind::Vectorized, "");
}

}  // namespace texc
