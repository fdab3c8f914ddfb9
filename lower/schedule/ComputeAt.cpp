// compute_at(S, L): stage S is computed inside loop L, only over the region that one iteration of
// L needs.
//
// Contract: S is an intermediate stage (not an op output) with a consumer, computed by its own
// unscheduled nest (at the root, or at another loop by an earlier compute_at); compute_at comes
// before other primitives on S's loops. L is not one of S's loops and encloses every statement
// that reads S. Bound inference (StageNest.h) gives, per spatial axis d of S, the region
// [lo_d, lo_d + ext_d) that the readers under L touch during one iteration of L (L and the loops
// outside it symbolic, the loops inside relaxed; split and fuse bindings are seen through), with
// ext_d a constant. S's nest is removed and a new one is inserted in L's body before the first
// statement that reads S: loops "S.<axis>" over [0, ext_d) bound to lo_d + loop, S's reduction loops
// over their whole domains, and a Block predicate `0 <= lo_d + loop < D_d` wherever that is not
// provable, so a border or tail tile never computes outside S's domain. Buffer sizes are left to
// plan_storage, which then allocates S with the region's extents inside L. On a GPU target a
// `global` S computed inside bound loops is sized as lower/gpu/InferScopes.h will scope it (one
// thread's region under a thread loop, one block's under a block loop).
#include <algorithm>

#include "ir/Diagnostics.h"
#include "ir/Target.h"
#include "lower/gpu/InferScopes.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

void apply_compute_at(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 2, 2, 0);
  const SourceLoc stage_loc = p.args[0].loc, loop_loc = p.args[1].loc;
  std::string name = stage_arg(st, step, 0);
  const Stage& stage = st.stage(name, stage_loc);
  const For* target = st.loop(loop_name_arg(step, 1), loop_loc);
  if (is_op_output(st, name)) throw_error(DiagId::MoveOutputStage, stage_loc, "compute_at", name);

  StageSite site = require_stage_site(st, name, "compute_at", stage_loc);
  if (std::find(site.own_loops.begin(), site.own_loops.end(), target) != site.own_loops.end())
    throw_error(DiagId::ComputeAtOwnLoop, loop_loc, name, target->var->name);
  std::string changed;
  if (!is_unscheduled_nest(site, &changed))
    throw_error(DiagId::StageAlreadyScheduled, stage_loc, "compute_at", name, changed, "compute_at", name);

  // Every reader must lie under the target loop.
  std::vector<BufferAccess> readers;
  for (BufferAccess& a : find_accesses(st.func.body, stage.buffer.get(), true, false))
    if (a.stmt != site.block_stmt) readers.push_back(std::move(a));
  if (readers.empty()) throw_error(DiagId::ComputeAtNoConsumer, stage_loc, name);
  for (const BufferAccess& a : readers)
    if (std::find(a.loops.begin(), a.loops.end(), target) == a.loops.end())
      throw_error(DiagId::ComputeAtNotEnclosing, loop_loc, name, target->var->name,
                  a.stage.empty() ? "(a tensorized call)" : "'" + a.stage + "'",
                  a.stage.empty() || is_op_output(st, a.stage)
                      ? ""
                      : " (compute_at(" + a.stage + ", " + target->var->name + ") first puts it there too)");

  std::vector<const For*> outer;
  st.path_to(target, &outer);
  outer.push_back(target);
  // On a GPU a `global` stage computed inside bound loops is local or shared (infer_gpu_scopes): the
  // region is that of one thread or one block, not relaxed over all of them.
  Buffer scoped = stage.buffer;
  if (is_gpu_target(st.target) && scoped->scope == MemScope::Global)
    if (MemScope s = gpu_scope_of_attach(outer); s != MemScope::Global)
      scoped = BufferNode::make(scoped->name, scoped->dtype, scoped->shape, s, scoped->role);
  Region region = infer_region(readers, outer, scoped);
  Stmt nest = build_nest_over_region(site.block, region, outer);

  // Move: remove the old nest, then insert the new one into the target loop (found again by name:
  // the removal rebuilt the statements around the old nest).
  std::string target_name = target->var->name;
  st.replace(site.nest_top.get(), nullptr);
  const For* l = st.find_loop(target_name);
  TEXC_CHECK(l) << "compute_at lost its target loop " << target_name;
  Stmt body = insert_before_first_reader(l->body, nest, stage.buffer.get());
  st.replace(l, l->with_body(body));
  check_dataflow(st, name, "compute_at", p.loc);
}

}  // namespace texc
