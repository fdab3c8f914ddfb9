#include "lower/AutoFuse.h"

#include "lower/OpParts.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_set>

#include "ir/Diagnostics.h"
#include "ir/ExprOrder.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/LinearForm.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/DefaultLoops.h"
#include "lower/OpParts.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

namespace {

bool is_elementwise(const ScheduleState& st, const std::string& name) {
  return !st.inlined.count(name) && !is_reduction_stage(st.stages.at(name));
}

// True if the stage copies another stage at its own indices, T[i..] = S[i..]: the copy-out stage
// that cache_write leaves, which stands for the reduction it copies; or if it copies a reduction
// stage in another layout, T[n, f, y, x] = R[n, f / 16, y, x, f % 16] (nn.conv2d_blocked's Y, with
// the tiles of R computed at its loops), which stands for that reduction just as well.
bool is_copy_of_stage(const ScheduleState& st, const std::string& name) {
  const Stage& stage = st.stages.at(name);
  const Load* load = stage.body->as<Load>();
  if (!load) return false;
  std::string source = stage_of_buffer(st, load->buffer.get());
  if (source.empty()) return false;
  if (!st.inlined.count(source) && is_reduction_stage(st.stages.at(source))) return true;
  if (load->indices.size() != stage.axes.size()) return false;
  for (size_t d = 0; d < stage.axes.size(); ++d)
    if (load->indices[d].get() != stage.axes[d].var.get()) return false;
  return true;
}

std::vector<std::string> stage_names(const ScheduleState& st) {
  std::vector<std::string> names;
  for (const Stage& s : st.op.stages) names.push_back(s.name);
  return names;
}

// The reduction stage R (or cache_write copy of one) that E's Block reads at E's own indices, when
// it is the only such stage E reads ("" otherwise).
std::string fusable_reduction(const ScheduleState& st, const Block* e) {
  std::string found;
  bool ok = true;
  for_each_expr(e->body, [&](const Expr& x) {
    const Load* load = x->as<Load>();
    if (!load || !ok) return;
    std::string producer = stage_of_buffer(st, load->buffer.get());
    if (producer.empty() || producer == e->stage) return;
    if (is_elementwise(st, producer) && !is_copy_of_stage(st, producer)) return;
    if (!found.empty() && found != producer) ok = false;
    found = producer;
    // At E's own indices: R[i, j, ...] with E's iter vars in order (also as `i*1`, as an imported
    // op's broadcast indexing leaves them), and the same shape.
    size_t nd = load->indices.size();
    ok = ok && nd == e->iter_vars.size();
    for (size_t d = 0; ok && d < nd; ++d) {
      int64_t a = 0, b = 1;
      const Expr& index = load->indices[d];
      const Var& var = e->iter_vars[d].var;
      ok = (index.get() == var.get() || same_expr(simplify(index), var)) && is_const_int(load->buffer->shape[d], &a) &&
           is_const_int(e->iter_vars[d].extent, &b) && a == b && is_const_int(e->iter_vars[d].min, int64_t(0));
    }
  });
  return ok ? found : "";
}

// True if one iteration of R's output loop produces a whole box of R, so that E may be computed
// over the box: every loop inside the output loop drives at most one spatial axis of R, and each
// spatial binding is linear in those loops with coefficients that step exactly over the extents
// below them (o*F + i with i in 0..F). A fused loop split at a factor that is not a multiple of
// the row produces scattered points of several rows, whose bounding box E must not compute.
bool produces_whole_box(const Block* r, const std::vector<const For*>& inner) {
  std::vector<const Variable*> used;
  for (size_t i = 0; i < r->iter_vars.size(); ++i) {
    if (r->iter_vars[i].is_reduce) continue;
    std::vector<std::pair<int64_t, int64_t>> terms;  // coefficient, extent
    for (const For* l : inner) {
      if (!uses_var(r->bindings[i], l->var.get())) continue;
      if (std::find(used.begin(), used.end(), l->var.get()) != used.end()) return false;
      used.push_back(l->var.get());
      auto k = linear_coefficient(r->bindings[i], l->var.get());
      int64_t extent;
      if (!k || *k <= 0 || !is_const_int(l->extent, &extent)) return false;
      terms.push_back({*k, extent});
    }
    std::sort(terms.begin(), terms.end());
    int64_t step = 1;
    for (const auto& [k, extent] : terms) {
      if (k != step) return false;
      step *= extent;
    }
  }
  return true;
}

// True if cond is `binding < min + extent` or `binding >= min` for a spatial axis of R: false
// only outside R's domain, where E's nest is clamped anyway.
bool is_domain_bound(const Expr& cond, const Block* r) {
  const Binary* b = cond->as<Binary>();
  if (!b || (b->op != BinaryOp::LT && b->op != BinaryOp::GE)) return false;
  for (size_t i = 0; i < r->iter_vars.size(); ++i) {
    const IterVar& iv = r->iter_vars[i];
    if (iv.is_reduce || !same_expr(b->a, r->bindings[i])) continue;
    Expr limit = b->op == BinaryOp::LT ? simplify(iv.min + iv.extent) : iv.min;
    if (same_expr(simplify(b->b), limit)) return true;
  }
  return false;
}

// The guards of R that E's nest must share: E runs exactly where R ran in this iteration. R's
// guards on loops outside the output loop guard E as they are; a guard on a loop inside it must be
// a domain bound of R (split guards of R's own axes), otherwise E would compute points that R did
// not produce (a guard of an intermediate split of a fused loop): then nullopt.
std::optional<Expr> shared_guard(const Block* r, const std::vector<const For*>& outer) {
  std::unordered_set<const Variable*> outer_vars;
  for (const For* l : outer) outer_vars.insert(l->var.get());
  Expr guard;
  for (const Expr& c : conjuncts(r->predicate)) {
    bool outer_only = true;
    for_each_expr(c, [&](const Expr& x) {
      if (const Variable* v = x->as<Variable>(); v && !outer_vars.count(v)) outer_only = false;
    });
    if (outer_only) guard = guard ? logical_and(guard, c) : c;
    else if (!is_domain_bound(c, r)) return std::nullopt;
  }
  return guard;
}

size_t reduction_axis_count(const Block* b) {
  size_t n = 0;
  for (const IterVar& iv : b->iter_vars) n += iv.is_reduce;
  return n;
}

// The nest with its innermost loop (of a constant extent of 2 to 64) marked vectorized.
Stmt vectorize_innermost_loop(const Stmt& nest) {
  const For* f = nest->as<For>();
  if (!f) return nest;
  if (f->body->as<For>()) {
    Stmt inner = vectorize_innermost_loop(f->body);
    return inner == f->body ? nest : f->with_body(inner);
  }
  int64_t extent;
  if (f->for_kind != ForKind::Serial || !is_const_int(f->extent, &extent) || extent < 2 || extent > 64) return nest;
  return f->with_kind(ForKind::Vectorized, f->thread_tag);
}

// On a GPU, E's nest inside R's output loop: a copy of R's loops inside it that drive only spatial
// axes (the thread and vthread loops, the unrolled register loops, with their kinds and tags) around
// E's Block, bound to R's spatial bindings and guarded by R's guards on those axes. Each thread
// thus applies E to exactly the points it produced, right after it finished their reduction (no
// other thread's points, no barrier, and no bounding box: R's points per block need not form one,
// as in a conv whose output rows and columns are fused and split). nullopt when a loop inside the
// output loop drives both kinds of axes, or E's axes are not R's spatial axes in order.
std::optional<Stmt> mirror_spatial_loops(const Block* e, const Block* r, const std::vector<const For*>& inner,
                                         const std::function<bool(const For*, bool)>& drives) {
  VarMap fresh;
  std::vector<const For*> kept;
  std::vector<Var> kept_vars;  // their fresh variables
  std::unordered_set<const Variable*> reduce_vars;
  for (const For* l : inner) {
    bool spatial = drives(l, false), reduce = drives(l, true);
    if (spatial && reduce) return std::nullopt;
    if (reduce) reduce_vars.insert(l->var.get());
    if (!spatial) continue;
    kept.push_back(l);
    kept_vars.push_back(Variable::make(l->var->name, l->var->type));
    fresh[l->var.get()] = kept_vars.back();
  }
  std::vector<Expr> bindings;
  for (size_t i = 0; i < r->iter_vars.size(); ++i)
    if (!r->iter_vars[i].is_reduce) bindings.push_back(substitute(r->bindings[i], fresh));
  if (bindings.size() != e->iter_vars.size()) return std::nullopt;
  Expr guard;
  for (const Expr& c : conjuncts(r->predicate)) {
    bool on_reduction = false;
    for_each_expr(c, [&](const Expr& x) {
      if (const Variable* v = x->as<Variable>(); v && reduce_vars.count(v)) on_reduction = true;
    });
    if (!on_reduction) guard = guard ? logical_and(guard, substitute(c, fresh)) : substitute(c, fresh);
  }
  Stmt nest = Block::make(e->stage, e->iter_vars, bindings, guard, e->init, e->body);
  for (size_t i = kept.size(); i-- > 0;)
    nest = For::make(kept_vars[i], kept[i]->min, kept[i]->extent, kept[i]->for_kind, nest, kept[i]->thread_tag);
  return nest;
}

// On a GPU, after E was mirrored into R's loops: when E is R's only reader, R is not an output, and
// a thread loop around R's Block (`loops`) drives one of R's axes, each thread reads back only the
// points it computed, so R becomes `local` (one accumulator per point of the thread, as
// cache_write(R, local) would make it) instead of a buffer the block or the grid shares.
void keep_in_registers(ScheduleState& st, const std::string& r_name, const std::string& e_name,
                       const std::vector<const For*>& loops) {
  const Buffer& buffer = st.stages.at(r_name).buffer;
  if (is_op_output(st, r_name) || buffer->scope != MemScope::Global) return;
  bool threaded = false;
  for (const For* l : loops)
    if (l->for_kind == ForKind::ThreadBound && thread_level(l->thread_tag) == ThreadLevel::Thread) threaded = true;
  if (!threaded) return;
  bool other_reader = false;
  for_each_stmt(st.func.body, [&](const Stmt& s) {
    const Block* b = s->as<Block>();
    if (!b || b->stage == r_name || b->stage == e_name) return;
    for (const Stmt& part : {b->body, b->init})
      if (part)
        for_each_expr(part, [&](const Expr& x) {
          if (const Load* l = x->as<Load>(); l && l->buffer.get() == buffer.get()) other_reader = true;
        });
  });
  if (other_reader) return;
  st.replace_buffers(
      {{buffer.get(), BufferNode::make(buffer->name, buffer->dtype, buffer->shape, MemScope::Local, buffer->role)}});
}

// E's nest over the box of R that one iteration of the output loop produces (the loops `outer`
// around it), under R's guards on those loops; nullopt when R has a guard inside the output loop
// that is not one of its own bounds.
std::optional<Stmt> nest_over_box(const ScheduleState& st, const Block* e, const StageSite& r_site,
                                  const std::string& r_name, const std::vector<const For*>& outer) {
  std::vector<BufferAccess> writes;
  for (BufferAccess& a : find_accesses(st.func.body, st.stages.at(r_name).buffer.get(), false, true))
    if (a.stmt == r_site.block_stmt) writes.push_back(std::move(a));
  Region region = infer_region(writes, outer, st.stages.at(r_name).buffer);
  std::optional<Expr> guard = shared_guard(r_site.block, outer);
  if (!guard) return std::nullopt;
  Stmt nest = build_nest_over_region(e, region, outer);
  if (*guard) nest = add_block_predicate(nest, *guard);
  return nest;
}

// Computes E inside R's output loop; returns false (leaving st unchanged) when there is none.
bool fuse_into(ScheduleState& st, const std::string& e_name, const std::string& r_name) {
  std::optional<StageSite> r_site = find_stage_site(st, r_name);
  std::optional<StageSite> e_site = find_stage_site(st, e_name);
  if (!r_site || !e_site) return false;
  std::vector<const For*> loops = r_site->attach_loops;
  loops.insert(loops.end(), r_site->own_loops.begin(), r_site->own_loops.end());
  const Block* r = r_site->block;
  auto drives = [&](const For* l, bool reduce) {
    for (size_t i = 0; i < r->iter_vars.size(); ++i)
      if (r->iter_vars[i].is_reduce == reduce && uses_var(r->bindings[i], l->var.get())) return true;
    return false;
  };
  // The output loop: around the outermost reduction loop; for a copy (no reduction loops), the
  // innermost serial or parallel loop driving one of its axes (E stays out of vector lanes).
  size_t first_reduce = 0;
  while (first_reduce < loops.size() && !drives(loops[first_reduce], true)) ++first_reduce;
  // On a GPU a copy's loops are bound or unrolled: E goes into its innermost loop, next to R's
  // Block (the same point, the same thread).
  if (first_reduce == loops.size() && !is_gpu_target(st.target)) {
    while (first_reduce > 0 && !(drives(loops[first_reduce - 1], false) &&
                                 (loops[first_reduce - 1]->for_kind == ForKind::Serial ||
                                  loops[first_reduce - 1]->for_kind == ForKind::Parallel)))
      --first_reduce;
  }
  if (first_reduce == 0) return false;
  const For* output_loop = loops[first_reduce - 1];
  if (!drives(output_loop, false)) return false;

  std::vector<const For*> outer(loops.begin(), loops.begin() + first_reduce);
  std::vector<const For*> inner(loops.begin() + first_reduce, loops.end());
  Stmt nest;
  if (is_gpu_target(st.target)) {
    std::optional<Stmt> mirrored = mirror_spatial_loops(e_site->block, r, inner, drives);
    if (!mirrored) return false;
    nest = *mirrored;
  } else {
    std::optional<Stmt> boxed = produces_whole_box(r, inner) ? nest_over_box(st, e_site->block, *r_site, r_name, outer)
                                                             : std::nullopt;
    if (boxed) {
      nest = *boxed;
      // When R produced its innermost axis with vector lanes, E consumes it the same way; so too
      // when an unrolled loop produced it (a register tile written back point by point, as
      // nn.conv2d_blocked's tile is to NCHW): E's innermost loop then runs along contiguous
      // elements of its output, and left serial, LLVM vectorized it across the outer axis instead
      // (conv2d_blocked + bias + ReLU: one 16-lane scatter per column of the tile, a store per
      // channel plane).
      const Expr& last_axis = r->bindings[r->iter_vars.size() - 1 - reduction_axis_count(r)];
      for (size_t i = first_reduce; i < loops.size(); ++i)
        if ((loops[i]->for_kind == ForKind::Vectorized || loops[i]->for_kind == ForKind::Unrolled) &&
            uses_var(last_axis, loops[i]->var.get())) {
          nest = vectorize_innermost_loop(nest);
          break;
        }
    } else {
      // R's points per iteration of O are no box (a fused loop split across rows: conv2d_1x1's
      // flattened output plane), or a guard inside O is not one of R's bounds: E follows R's own
      // spatial loops inside O, at exactly the points R produced there, as on a GPU.
      std::optional<Stmt> mirrored = mirror_spatial_loops(e_site->block, r, inner, drives);
      if (!mirrored) return false;
      nest = *mirrored;
    }
  }

  ScheduleState saved = st;
  std::string loop_name = output_loop->var->name;
  st.replace(e_site->nest_top.get(), nullptr);
  const For* o = st.find_loop(loop_name);
  // Right after the statement of O's body that holds R's Block (and its reduction loops).
  std::vector<Stmt> body = statement_list(o->body);
  size_t at = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    bool writes_r = false;
    for_each_stmt(body[i], [&](const Stmt& s) {
      if (const Block* b = s->as<Block>(); b && b->stage == r_name) writes_r = true;
    });
    if (writes_r) at = i + 1;
  }
  body.insert(body.begin() + at, nest);
  st.replace(o, o->with_body(Seq::make(body)));
  if (dataflow_problem(st, e_name) || dataflow_problem(st, r_name)) {
    st = std::move(saved);
    return false;
  }
  if (is_gpu_target(st.target)) keep_in_registers(st, r_name, e_name, loops);
  return true;
}

}  // namespace

namespace {

// Whether a reduction stage reads `name`: inlined there, it would be recomputed at every step.
bool read_by_a_reduction(const ScheduleState& st, const std::string& name) {
  for (const auto& [other, stage] : st.stages)
    if (!st.inlined.count(other) && is_reduction_stage(stage) && buffers_read(stage.body).count(name)) return true;
  return false;
}

}  // namespace

void inline_injective_stages(ScheduleState& st) {
  for (const std::string& name : stage_names(st)) {
    if (st.user_named.count(name) || !is_elementwise(st, name) || is_op_output(st, name)) continue;
    if (st.kept_materialised.count(name) && read_by_a_reduction(st, name)) continue;
    // Where inline would be an error (read by a tensorized call, too large to copy, ...), the
    // stage stays stored.
    try_inline(st, name, st.stages.at(name).loc);
  }
}

bool is_injective_call(const ScheduleState& st, const std::vector<std::string>& call_stages) {
  if (call_stages.empty()) return false;
  for (const std::string& name : call_stages) {
    auto it = st.stages.find(name);
    if (it == st.stages.end() || is_reduction_stage(it->second) ||
        st.stages.count(hidden_reduction_stage_name(name, 0)))
      return false;
  }
  return true;
}

bool takes_automatic_fusion(const ScheduleState& st, const std::string& stage) {
  if (st.inlined.count(stage)) return true;
  if (!is_elementwise(st, stage)) return false;
  std::optional<StageSite> site = find_stage_site(st, stage);
  std::string changed;
  if (!site || !site->is_root_statement || !is_unscheduled_nest(*site, &changed)) return false;
  return !fusable_reduction(st, site->block).empty();
}

void fuse_into_reductions(ScheduleState& st) {
  for (const std::string& name : stage_names(st)) {
    if (st.user_named.count(name) || !is_elementwise(st, name)) continue;
    std::optional<StageSite> site = find_stage_site(st, name);
    std::string changed;
    if (!site || !site->is_root_statement || !is_unscheduled_nest(*site, &changed)) continue;
    std::string reduction = fusable_reduction(st, site->block);
    if (!reduction.empty()) fuse_into(st, name, reduction);
  }
}

}  // namespace texc
