// bind(L, blockIdx.x | threadIdx.y | vthread | ...): L becomes a GPU block/thread index or a
// virtual thread. A reduction loop can be bound only to threadIdx.* on a GPU target (a
// cross-thread reduction: lower/gpu/CrossThreadReduction.h), and one thread tag is bound once per
// nest, except that a loop inside a loop bound to the same threadIdx tag becomes that thread index
// (thread relaxation: TVM's cooperative fill of a shared tile attached inside compute_at(CL, tx),
// its loops split by the thread counts and bound again; the tile is sized for the block, as every
// shared buffer). Such a loop needs a constant extent from 0, at most the threads'.
//
// On the CPU targets (x86, arm, interp) there are no GPU indices: binding blockIdx/threadIdx is a
// diagnostic at the tag that points to `schedule cuda` and to parallel(L). A virtual thread keeps
// TVM's CPU meaning: L stays an ordinary serial loop (the same legality checks apply: not a
// reduction loop, not already annotated), so a schedule written with vthreads compiles everywhere.
//
// A reduction loop bound to blockIdx.* on a GPU is split-K: each block reduces its part, and
// lower_cross_block_reductions (lower/gpu/CrossBlockReduction.h) adds the blocks' partials to the
// output atomically, the host zeroing it before the launch. Bound to vthread it stays an error.
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


namespace {

// Thread relaxation (TVM's cooperative fill inside compute_at(CL, tx)): loop `l`, of constant
// extent E from 0, bound to the tag of the enclosing thread loop `outer` (extent T >= E), is that
// thread index: its body runs once, with l's variable replaced by outer's, in the threads below E.
// A split inner loop whose factor exceeded its extent counts its extent as the factor, as bind
// does. False (nothing changed) where it does not apply.
bool relax_into_enclosing_thread(ScheduleState& st, const For* l, const For* outer) {
  int64_t extent = 0, threads = 0;
  if (thread_level(outer->thread_tag) != ThreadLevel::Thread || !is_const_int(l->min, int64_t(0)) ||
      !is_const_int(l->extent, &extent) || !is_const_int(outer->extent, &threads) || extent > threads ||
      l->for_kind != ForKind::Serial)
    return false;
  Stmt body = substitute(l->body, VarMap{{l->var.get(), outer->var}});
  if (extent < threads) body = add_block_predicate(body, Expr(outer->var) < make_int(extent));
  st.record_replaced(l->var->name, "bind", {outer->var->name});
  st.replace(l, body);
  return true;
}

}  // namespace

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
  // (lower/gpu/CrossThreadReduction.h), one bound to blockIdx.* a cross-block one (split-K:
  // lower/gpu/CrossBlockReduction.h); every other binding of one is an error.
  std::string stage;
  if (is_reduction_loop(l, &stage)) {
    const ThreadLevel level = thread_level(tag.name);
    if (cpu || (level != ThreadLevel::Thread && level != ThreadLevel::Block))
      throw_error(DiagId::ReductionLoopAnnotation, p.args[0].loc, "bind", l->var->name, stage);
    (level == ThreadLevel::Thread ? st.thread_bound_reductions : st.block_bound_reductions).insert(l->var->name);
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
      if (relax_into_enclosing_thread(st, l, outer)) return;
      std::string message = "'" + tag.name + "' is already bound to the enclosing loop '" + outer->var->name + "'";
      int64_t extent = 0, threads = 0;
      if (thread_level(tag.name) == ThreadLevel::Thread && is_const_int(l->extent, &extent) &&
          is_const_int(outer->extent, &threads) && extent > threads)  // TVM's fill, longer than the threads
        message += " (" + std::to_string(threads) + " threads): loop '" + l->var->name + "' takes that thread index " +
                   "only with at most " + std::to_string(threads) + " iterations, and it has " + std::to_string(extent) +
                   "; split it by " + std::to_string(threads) + " and bind the inner loop";
      else if (thread_level(tag.name) == ThreadLevel::Thread)
        message += ": loop '" + l->var->name + "' can take that thread index only as a serial loop of constant extent "
                   "from 0 (TVM's cooperative fill inside compute_at(CL, tx), docs/cuda.md)";
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
