// S2 = cache_write(T, scope): T's computation moves to a new stage S2 in memory scope `scope`,
// and T becomes a copy of it (TVM's cache_write, e.g. accumulating a matmul tile in registers).
//
// Contract: T is a stage (not an op input) whose nest is still the unscheduled top-level nest
// (cache_write comes before other primitives on T's loops); scope is one the target declares
// (ir/Target.h; another is an error at the argument); S2 is a
// fresh name. S2 has T's shape and element type and T's whole computation (body, reduction and
// init) with fresh axis variables of the same names, so its loops are "S2.<axis>" for every axis,
// reduction axes included. T becomes `T[a..] = S2[a..]` over its spatial loops "T.<axis>". S2's nest
// is placed right before T's; S2 is registered in ScheduleState::stages (and the op's stage list,
// before T) and counts as named by the schedule.
#include <unordered_map>

#include "ir/Diagnostics.h"
#include "ir/Substitute.h"
#include "lower/DefaultLoops.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

void apply_cache_write(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 2, 2, 1);
  const SourceLoc loc = p.args[0].loc;
  std::string tensor = loop_name_arg(step, 0);
  for (const Buffer& b : st.op.inputs)
    if (b->name == tensor) throw_error(DiagId::CacheOfInput, loc, tensor);
  std::string name = stage_arg(st, step, 0);
  MemScope scope = scope_arg(st, step, 1);
  const std::string& cache_name = p.results[0];
  st.check_fresh_name(cache_name, p.result_locs.empty() ? p.loc : p.result_locs[0]);

  StageSite site = require_stage_site(st, name, "cache_write", loc);
  std::string changed;
  if (!is_unscheduled_nest(site, &changed) || !site.is_root_statement || site.block->predicate)
    throw_error(DiagId::StageAlreadyScheduled, loc, "cache_write", name, changed.empty() ? name : changed,
                "cache_write", name);
  const Stage& stage = st.stages.at(name);
  const Block* block = site.block;

  // The cache stage: T's definition and Block with fresh variables, storing to the cache buffer.
  Stage cache;
  cache.name = cache_name;
  cache.loc = p.loc;
  cache.buffer =
      BufferNode::make(cache_name, stage.buffer->dtype, stage.buffer->shape, scope, BufferRole::Intermediate);
  VarMap fresh;
  std::unordered_map<const Variable*, Var> fresh_var;
  std::vector<IterVar> cache_iter_vars;
  for (const IterVar& iv : block->iter_vars) {
    IterVar c = iv;
    c.var = Variable::make(iv.var->name, iv.var->type);
    fresh[iv.var.get()] = fresh_var[iv.var.get()] = c.var;
    cache_iter_vars.push_back(c);
  }
  for (const IterVar& a : stage.axes) {
    IterVar c = a;
    c.var = fresh_var.at(a.var.get());
    cache.axes.push_back(c);
  }
  BufferMap to_cache{{stage.buffer.get(), cache.buffer}};
  // Reduction axes of the definition are bound inside its Reduce node: give them the fresh
  // variables too, so the two stages share no variable.
  if (const Reduce* r = stage.body->as<Reduce>()) {
    std::vector<IterVar> axes = r->axes;
    for (IterVar& a : axes) a.var = fresh_var.at(a.var.get());
    cache.body = Reduce::make(r->reduce_kind, substitute(r->source, fresh), axes);
  } else {
    cache.body = substitute(stage.body, fresh);
  }
  Stmt cache_init = block->init ? substitute_buffers(substitute(block->init, fresh), to_cache) : nullptr;
  Stmt cache_body = substitute_buffers(substitute(block->body, fresh), to_cache);
  Stmt cache_block = Block::make(cache_name, cache_iter_vars, block->bindings, nullptr, cache_init, cache_body);
  Stmt cache_nest = build_full_nest(cache_block->as<Block>());

  // T becomes the copy out of the cache.
  Stage copy = stage;
  std::vector<Expr> index;
  for (const IterVar& a : stage.axes) index.push_back(a.var);
  copy.body = Load::make(cache.buffer, index);

  st.replace(site.nest_top.get(), Seq::make({cache_nest, build_stage_nest(copy)}));
  st.stages[name] = copy;
  st.add_stage_before(cache, name, "cache_write", p.loc);
}

}  // namespace texc
