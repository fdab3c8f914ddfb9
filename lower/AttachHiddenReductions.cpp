#include "lower/AttachHiddenReductions.h"

#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

namespace {

// The loop to compute a hidden stage of `consumer` at, or null.
const For* attach_loop(const ScheduleState& st, const std::string& consumer) {
  std::optional<StageSite> site = find_stage_site(st, consumer);
  if (!site) return nullptr;
  const For* loop = !site->own_loops.empty()    ? site->own_loops.front()
                    : !site->attach_loops.empty() ? site->attach_loops.back()
                                                  : nullptr;
  if (!loop || loop->for_kind == ForKind::Vectorized) return nullptr;
  return loop;
}

SchedStep compute_at_step(const std::string& stage, const For* loop, SourceLoc loc) {
  SchedStep step;
  step.prim.primitive = "compute_at";
  step.prim.loc = loc;
  for (const std::string& name : {stage, loop->var->name}) {
    SchedArg a;
    a.name = name;
    a.loc = loc;
    step.prim.args.push_back(a);
    step.int_args.push_back(std::nullopt);
  }
  return step;
}

}  // namespace

void attach_hidden_reductions(ScheduleState& st) {
  std::vector<std::string> consumers;
  for (const Stage& s : st.op.stages)
    if (st.user_named.count(s.name) && !st.inlined.count(s.name)) consumers.push_back(s.name);
  for (const std::string& consumer : consumers) {
    for (int i = 0;; ++i) {
      std::string hidden = hidden_reduction_stage_name(consumer, i);
      auto it = st.stages.find(hidden);
      if (it == st.stages.end()) break;
      if (st.user_named.count(hidden) || st.inlined.count(hidden)) continue;
      std::optional<StageSite> site = find_stage_site(st, hidden);
      std::string changed;
      if (!site || !site->is_root_statement || !is_unscheduled_nest(*site, &changed)) continue;
      const For* loop = attach_loop(st, consumer);
      if (!loop) continue;
      apply_compute_at(st, compute_at_step(hidden, loop, it->second.loc));
    }
  }
}

}  // namespace texc
