// bind(L, blockIdx.x | threadIdx.y | vthread | ...): L becomes a GPU block/thread index or a
// virtual thread. A reduction loop can be bound only to threadIdx.* on a GPU target (a
// cross-thread reduction: lower/gpu/CrossThreadReduction.h), and one thread tag is bound once per
// nest: a thread tag bound again inside its own loop (TVM's relaxation of a cooperative fill
// attached inside compute_at(CL, tx)) is an error that spells out the form texc takes instead.
//
// On the CPU targets (x86, arm, interp) there are no GPU indices: binding blockIdx/threadIdx is a
// diagnostic at the tag that points to `schedule cuda` and to parallel(L). A virtual thread keeps
// TVM's CPU meaning: L stays an ordinary serial loop (the same legality checks apply: not a
// reduction loop, not already annotated), so a schedule written with vthreads compiles everywhere.
//
// A loop bound to threadIdx.* that is the inner loop of a split whose factor exceeded the loop's
// extent (`split(L, 16)` of a 12-iteration L gives an inner loop of 12) takes the factor back as its
// extent, its body guarded by the old extent (TVM's split): a schedule that splits a cooperative
// fill by the block's thread count keeps that count when a small shape makes the fill shorter.
#include <algorithm>

#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
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
  if (is_reduction_loop(l, &stage)) {
    if (cpu || thread_level(tag.name) != ThreadLevel::Thread)
      throw_error(DiagId::ReductionLoopAnnotation, p.args[0].loc, "bind", l->var->name, stage);
    st.thread_bound_reductions.insert(l->var->name);
  }
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
    for (const For* outer : path) {
      if (outer->thread_tag != tag.name) continue;
      std::string message = "'" + tag.name + "' is already bound to the enclosing loop '" + outer->var->name + "'";
      if (thread_level(tag.name) == ThreadLevel::Thread)  // TVM's cooperative fill inside compute_at(CL, tx)
        message += ": a loop inside a thread loop runs in each of its threads, and texc does not relax it into the "
                   "enclosing threads (TVM's compute_at(CL, tx) idiom). For a cooperative fill, attach the local "
                   "stage at the block loop instead (compute_at(CL, bx)), split its loops by the thread counts and "
                   "bind them to the same tags with its k loop outside them, and attach the shared tiles at that k "
                   "loop (docs/cuda.md, 'Register tiles and cooperative fills')";
      throw_error(DiagId::ScheduleError, tag.loc, message);
    }
  }
  auto clamped = st.clamped_splits.find(l->var->name);
  if (thread_level(tag.name) == ThreadLevel::Thread && clamped != st.clamped_splits.end() &&
      is_const_int(l->min, int64_t(0)) && l->for_kind == ForKind::Serial) {
    Stmt body = add_block_predicate(l->body, Expr(l->var) < l->extent);
    st.replace(l, For::make(l->var, l->min, make_int(clamped->second), ForKind::Serial, body));
  }
  annotate_loop(st, step, ForKind::ThreadBound, tag.name);
}

}  // namespace texc
