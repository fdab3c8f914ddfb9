// parallel(L): L's iterations run on the thread pool. Not for reduction loops (a race), and not
// inside another parallel loop.
#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"

namespace texc {

void apply_parallel(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  std::string stage;
  if (is_reduction_loop(l, &stage)) throw_error(DiagId::ReductionLoopAnnotation, p.args[0].loc, "parallelize", l->var->name, stage);
  std::vector<const For*> path;
  st.path_to(l, &path);
  for (const For* outer : path)
    if (outer->for_kind == ForKind::Parallel) throw_error(DiagId::NestedParallel, p.args[0].loc, l->var->name, outer->var->name);
  annotate_loop(st, step, ForKind::Parallel, "");
}

}  // namespace texc
