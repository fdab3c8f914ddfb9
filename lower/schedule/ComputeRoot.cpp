// compute_root(S): stage S is computed in full at the top level, before the first top-level
// statement that reads it (undoing compute_at).
//
// Contract: S is still computed by a nest of its own (not inlined or tensorized) and no other
// stage is computed inside its loops. When S's nest already is a top-level statement it is left
// as it is (with whatever loop transformations it has); otherwise it is removed and regenerated
// over S's whole domain with loops named "S.<axis>", keeping S's Block body and init. The result
// must respect the data flow: S's producers are computed before it at the top level.
#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

void apply_compute_root(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  std::string name = stage_arg(st, step, 0);
  const Stage& stage = st.stage(name, p.args[0].loc);
  StageSite site = require_stage_site(st, name, "compute_root", p.args[0].loc);
  if (site.is_root_statement) return;

  Stmt nest = build_full_nest(site.block);
  st.replace(site.nest_top.get(), nullptr);
  st.func.body = insert_before_first_reader(st.func.body, nest, stage.buffer.get());
  check_dataflow(st, name, "compute_root", p.loc);
}

}  // namespace texc
