// bind(L, blockIdx.x | threadIdx.y | vthread | ...): L becomes a GPU block/thread index or a
// virtual thread. A reduction loop can be bound only to threadIdx.* on a GPU target (a
// cross-thread reduction: lower/gpu/CrossThreadReduction.h), and one thread tag is bound once per
// nest.
//
// On the CPU targets (x86, arm, interp) there are no GPU indices: binding blockIdx/threadIdx is a
// diagnostic at the tag that points to `schedule cuda` and to parallel(L). A virtual thread keeps
// TVM's CPU meaning: L stays an ordinary serial loop (the same legality checks apply: not a
// reduction loop, not already annotated), so a schedule written with vthreads compiles everywhere.
#include <algorithm>

#include "ir/Diagnostics.h"
#include "ir/Target.h"
#include "lower/schedule/Primitives.h"

namespace texc {


void apply_bind(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 2, 2, 0);
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  const SchedArg& tag = name_arg(step, 1);
  if (thread_level(tag.name) == ThreadLevel::None) throw_error(DiagId::BadThreadTag, tag.loc, tag.name);
  // The target's own tags (ir/Target.h); "host" and unknown names are CPUs.
  const Target* target = find_target(st.target);
  const bool cpu = !target || std::string(target->schedule_family) == "cpu";
  // A reduction loop bound to threadIdx.* on a GPU becomes a cross-thread reduction
  // (lower/gpu/CrossThreadReduction.h); every other binding of one is an error.
  std::string stage;
  if (is_reduction_loop(l, &stage) && (cpu || thread_level(tag.name) != ThreadLevel::Thread))
    throw_error(DiagId::ReductionLoopAnnotation, p.args[0].loc, "bind", l->var->name, stage);
  const std::vector<std::string> cpu_tags = {"vthread"};
  const std::vector<std::string>& allowed = target ? target->thread_tags : cpu_tags;
  if (std::find(allowed.begin(), allowed.end(), tag.name) == allowed.end())
    throw_error(DiagId::GpuThreadTagOnCpu, tag.loc, tag.name, st.target, l->var->name);
  if (cpu) {
    annotate_loop(st, step, ForKind::Serial, "");  // a virtual thread on a CPU: the loop stays serial
    return;
  }
  if (tag.name != "vthread") {
    std::vector<const For*> path;
    st.path_to(l, &path);
    for (const For* outer : path)
      if (outer->thread_tag == tag.name)
        throw_error(DiagId::ScheduleError, tag.loc, "'" + tag.name + "' is already bound to the enclosing loop '" + outer->var->name + "'");
  }
  annotate_loop(st, step, ForKind::ThreadBound, tag.name);
}

}  // namespace texc
