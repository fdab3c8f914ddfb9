// S2 = cache_read(T, scope, C): a new stage S2 copies tensor T (an op input or a stage) into a
// buffer of memory scope `scope`, and consumer C reads S2 instead of T.
//
// Contract: scope is one the target declares (ir/Target.h: global, local, shared, its own such as
// vdla.inp; another is an error at the argument); C is a stage
// whose Block reads T; S2 is a fresh name. S2 has T's shape and element type, S2[a..] = T[a..],
// with axes named after T's axes when T is a stage, else after the variables C indexes T with
// when they are plain and distinct, else d0, d1, ...; its loops are "S2.<axis>". Only C's Block
// is rewritten (other readers keep reading T), and C's stage definition likewise. S2's nest is
// inserted at the top level right before the top-level statement that holds C, S2 is registered
// in ScheduleState::stages (and the op's stage list, before C) and counts as named by the schedule.
#include <set>

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/DefaultLoops.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

namespace {

// The axis names of the copy: T's own, or the plain variables C indexes T with, or d0, d1, ...
std::vector<std::string> copy_axis_names(const ScheduleState& st, const std::string& tensor, const Buffer& buffer,
                                         const Block* consumer) {
  std::vector<std::string> names(buffer->ndim());
  if (auto it = st.stages.find(tensor); it != st.stages.end()) {
    for (size_t d = 0; d < names.size(); ++d) names[d] = it->second.axes[d].var->name;
    return names;
  }
  std::vector<const Load*> loads;
  for (const Stmt& part : {consumer->init, consumer->body})
    if (part)
      for_each_expr(part, [&](const Expr& x) {
        if (const Load* l = x->as<Load>(); l && l->buffer == buffer) loads.push_back(l);
      });
  std::set<std::string> used;
  for (size_t d = 0; d < names.size(); ++d) {
    const Variable* v = loads.empty() ? nullptr : loads[0]->indices[d]->as<Variable>();
    for (const Load* l : loads)
      if (!v || l->indices[d]->as<Variable>() != v) v = nullptr;
    names[d] = v && !used.count(v->name) ? v->name : "d" + std::to_string(d);
    used.insert(names[d]);
  }
  // A fallback name may collide with a variable's name: then number every axis.
  if (used.size() != names.size())
    for (size_t d = 0; d < names.size(); ++d) names[d] = "d" + std::to_string(d);
  return names;
}

}  // namespace

void apply_cache_read(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 3, 3, 1);
  const SchedArg& tensor_arg = name_arg(step, 0);
  std::string tensor = loop_name_arg(step, 0);  // a stage or input name, after the call's renaming
  Buffer buffer;
  if (st.has_stage(tensor) && !st.inlined.count(tensor)) {
    buffer = st.stage(tensor, tensor_arg.loc).buffer;
  } else {
    for (const Buffer& b : st.op.inputs)
      if (b->name == tensor) buffer = b;
    if (!buffer) throw_error(DiagId::UnknownStage, tensor_arg.loc, tensor);
  }
  MemScope scope = scope_arg(st, step, 1);
  std::string consumer = stage_arg(st, step, 2);
  const std::string& copy_name = p.results[0];
  st.check_fresh_name(copy_name, p.result_locs.empty() ? p.loc : p.result_locs[0]);

  StageSite site = require_stage_site(st, consumer, "cache_read", p.args[2].loc);
  if (!reads_buffer(site.block_stmt, buffer.get()))
    throw_error(DiagId::CacheReadNotReader, p.args[2].loc, tensor, consumer, consumer, tensor);

  // The copy stage.
  Stage copy;
  copy.name = copy_name;
  copy.loc = p.loc;
  copy.buffer = BufferNode::make(copy_name, buffer->dtype, buffer->shape, scope, BufferRole::Intermediate);
  std::vector<Expr> index;
  std::vector<std::string> axis_names = copy_axis_names(st, tensor, buffer, site.block);
  for (size_t d = 0; d < buffer->ndim(); ++d) {
    Var v = Variable::make(axis_names[d], Index());
    copy.axes.push_back(IterVar{v, make_int(0), buffer->shape[d], false});
    index.push_back(v);
  }
  copy.body = Load::make(buffer, index);

  // C reads the copy.
  BufferMap to_copy{{buffer.get(), copy.buffer}};
  st.replace(site.block_stmt.get(), substitute_buffers(site.block_stmt, to_copy));
  Stage& consumer_def = st.stages.at(consumer);
  consumer_def.body = substitute_buffers(consumer_def.body, to_copy);

  // The copy's nest goes right before the top-level statement that holds C.
  st.func.body = insert_before_first_reader(st.func.body, build_stage_nest(copy), copy.buffer.get());
  st.add_stage_before(copy, consumer, "cache_read", p.loc);
}

}  // namespace texc
