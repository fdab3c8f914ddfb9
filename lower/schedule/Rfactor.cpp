// SF = rfactor(S, L): S's reduction is factored over loop L into a stage SF of partial results,
// and S reduces SF (TVM's rfactor). After `ko, ki = split(S.k, 8)` on S[i] = sum(A[i, k] for k),
// `SF = rfactor(S, ki)` gives SF[i, ki] = sum(A[i, ko*8 + ki] for ko) and S[i] = sum(SF[i, ki] for
// ki): SF's loop over ki is spatial, so it can be vectorized or parallelized, and S adds 8 values.
//
// Contract: S is a reduction stage (sum, max, min or prod; `S` also names its hidden reduction
// stage, as in `S.k`) computed by a Block of its own; L is one of S's reduction loops (a loop
// driving only reduction axes of S, from splits or fuses of them, or the reduction loop itself);
// SF is a fresh name. S's reduction loops lie inside all of its other loops, are serial and
// perfectly nested: rfactor comes after the splits (and reorders, fuses) of S's reduction loops and
// before any other primitive on them; S's other loops may be scheduled in any way before.
//
// SF has S's axes (named as S's) and then an axis for L (its extent; named after L: `ki` for loop
// `ki`, `k` for loop `S.k`), and reduces over S's other reduction loops in their current order
// (each an axis named after its loop). Its body is S's with every reduction axis replaced by its
// binding over those loops; where the loops cover more than the reduction's domain (non-dividing
// splits), the predicate the splits left keeps the update from running, so such points contribute
// the identity and never read out of bounds (SF is the identity where no point contributes). The
// predicate is part of SF's Block body (an `if` around the update; a select of the source or the
// identity when L is the whole reduction and SF is elementwise), so primitives that rebuild SF's
// nest keep it. SF's nest is
// its unscheduled nest over its whole domain (loops `SF.<axis>`: S's axes, L's axis, then the
// reduction axes), inserted at the top level before the statement that holds S; SF is registered
// like a cache stage and counts as named by the schedule.
//
// S keeps its Block's other loops, bindings and the predicate terms that do not involve its
// reduction loops; its reduction loops are replaced by one loop named L (over L's extent; a later
// use of another one's name says which loop of SF replaced it) in which
// S combines SF[axes.., l] into its init'ed accumulator. Its stage definition is rewritten the same
// way (S[axes] = reduce(SF[axes, l] for l)).
#include <algorithm>
#include <unordered_set>

#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/DefaultLoops.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

namespace {

Expr conjunction(const std::vector<Expr>& terms) {
  Expr out;
  for (const Expr& t : terms) out = out ? logical_and(out, t) : t;
  return out;
}

bool mentions_any(const Expr& e, const std::unordered_set<const Variable*>& vars) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) {
    if (const Variable* v = x->as<Variable>(); v && vars.count(v)) found = true;
  });
  return found;
}

// The axis name SF gives a loop: the part after the stage ("k" for "S.k"), or the loop's own name
// as the schedule wrote it (a schedule carried from an imported op has its bound names prefixed
// with "<call-lhs>_", the result's as much as the loop's: that prefix is not part of the name).
std::string axis_name(const std::string& loop, const SchedStep& step) {
  auto dot = loop.rfind('.');
  if (dot != std::string::npos) return loop.substr(dot + 1);
  std::string name = loop, result = step.prim.results.at(0);
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const auto& [callee, caller] : step.prim.stage_renames) {
      std::string prefix = caller + "_";
      if (name.size() > prefix.size() && result.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
          result.compare(0, prefix.size(), prefix) == 0) {
        name = name.substr(prefix.size());
        result = result.substr(prefix.size());
        stripped = true;
      }
    }
  }
  return name;
}

std::string join_names(const std::vector<const For*>& loops) {
  std::string out;
  for (const For* l : loops) out += (out.empty() ? "'" : ", '") + l->var->name + "'";
  return out.empty() ? "none" : out;
}

// The stage rfactor factors: S itself, or the hidden reduction stage of S that holds loop L.
std::string reduction_stage(const ScheduleState& st, const std::string& name, const For* l, SourceLoc loc) {
  if (is_reduction_stage(st.stages.at(name))) return name;
  std::string under = st.stage_under(l);
  for (int i = 0; i < 8; ++i)
    if (under == hidden_reduction_stage_name(name, i) && st.has_stage(under)) return under;
  throw_error(DiagId::RfactorNotReduction, loc, name);
}

}  // namespace

void apply_rfactor(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 2, 2, 1);
  const SourceLoc stage_loc = p.args[0].loc, loop_loc = p.args[1].loc;
  std::string written = stage_arg(st, step, 0);
  const For* factor_loop = st.loop(loop_name_arg(step, 1), loop_loc);
  const std::string& sf_name = p.results[0];
  st.check_fresh_name(sf_name, p.result_locs.empty() ? p.loc : p.result_locs[0]);
  std::string name = reduction_stage(st, written, factor_loop, stage_loc);
  StageSite site = require_stage_site(st, name, "rfactor", stage_loc);
  const Block* block = site.block;
  const Stage& stage = st.stages.at(name);
  const Reduce* reduce = stage.body->as<Reduce>();
  const size_t n_spatial = stage.axes.size();
  TEXC_CHECK(block->iter_vars.size() == n_spatial + reduce->axes.size())
      << "the Block of " << name << " does not match its definition";

  // S's loops, outermost first: those that drive only reduction axes are its reduction loops.
  std::vector<const For*> loops;
  st.path_to(block, &loops);
  std::vector<const For*> reduction_loops;
  for (const For* l : loops) {
    bool spatial = false, reduction = false;
    for (size_t i = 0; i < block->iter_vars.size(); ++i)
      if (uses_var(block->bindings[i], l->var.get())) (block->iter_vars[i].is_reduce ? reduction : spatial) = true;
    if (reduction && !spatial) {
      reduction_loops.push_back(l);
    } else if (spatial && reduction) {
      throw_error(DiagId::RfactorLoopOrder, stage_loc, name, l->var->name, "also drives a spatial axis", name);
    } else if (spatial && !reduction_loops.empty()) {
      throw_error(DiagId::RfactorLoopOrder, stage_loc, name, reduction_loops.back()->var->name,
                  "encloses loop '" + l->var->name + "'", name);
    }
  }
  if (std::find(reduction_loops.begin(), reduction_loops.end(), factor_loop) == reduction_loops.end())
    throw_error(DiagId::RfactorNotReductionLoop, loop_loc, name, factor_loop->var->name, name,
                join_names(reduction_loops));
  for (size_t i = 0; i < reduction_loops.size(); ++i) {
    const For* l = reduction_loops[i];
    if (l->for_kind != ForKind::Serial)
      throw_error(DiagId::RfactorLoopOrder, stage_loc, name, l->var->name,
                  std::string("is ") + for_kind_name(l->for_kind), name);
    const StmtNode* next = i + 1 < reduction_loops.size() ? static_cast<const StmtNode*>(reduction_loops[i + 1]) : block;
    if (l->body.get() != next)
      throw_error(DiagId::RfactorLoopOrder, stage_loc, name, l->var->name, "holds other statements", name);
    if (!is_const_int(l->min) || !is_const_int(l->extent))
      throw_error(DiagId::NonConstantExtent, loop_loc, "rfactor", l->var->name);
  }
  int64_t factor_extent = 0;
  is_const_int(factor_loop->extent, &factor_extent);

  // SF's axes: S's axes, L's, then S's other reduction loops in order.
  std::vector<IterVar> sf_axes, sf_reduce;
  VarMap to_sf;  // S's axis variables and reduction loop variables -> SF's axis expressions
  std::vector<std::string> used_names;
  auto take_name = [&](const std::string& axis) {
    if (std::find(used_names.begin(), used_names.end(), axis) != used_names.end())
      throw_error(DiagId::RfactorAxisClash, loop_loc, name, factor_loop->var->name, axis);
    used_names.push_back(axis);
  };
  for (size_t d = 0; d < n_spatial; ++d) {
    const IterVar& a = stage.axes[d];
    take_name(a.var->name);
    Var v = Variable::make(a.var->name, a.var->type);
    sf_axes.push_back(IterVar{v, make_int(0), a.extent, false});
    to_sf[a.var.get()] = v;
    to_sf[block->iter_vars[d].var.get()] = v;
  }
  std::string factor_axis = axis_name(factor_loop->var->name, step);
  take_name(factor_axis);
  Var factor_var = Variable::make(factor_axis, factor_loop->var->type);
  sf_axes.push_back(IterVar{factor_var, make_int(0), make_int(factor_extent), false});
  VarMap loops_to_sf;
  loops_to_sf[factor_loop->var.get()] =
      is_const_int(factor_loop->min, int64_t(0)) ? Expr(factor_var) : simplify(factor_var + factor_loop->min);
  std::unordered_set<const Variable*> reduction_vars;
  for (const For* l : reduction_loops) {
    reduction_vars.insert(l->var.get());
    if (l == factor_loop) continue;
    std::string axis = axis_name(l->var->name, step);
    take_name(axis);
    Var v = Variable::make(axis, l->var->type);
    sf_reduce.push_back(IterVar{v, l->min, l->extent, true});
    loops_to_sf[l->var.get()] = v;
  }
  for (size_t j = 0; j < reduce->axes.size(); ++j) {
    Expr value = substitute(block->bindings[n_spatial + j], loops_to_sf);
    to_sf[reduce->axes[j].var.get()] = value;
    to_sf[block->iter_vars[n_spatial + j].var.get()] = value;
  }

  // The predicate terms over reduction loops (from their splits) move to SF; the others stay.
  std::vector<Expr> sf_terms, kept_terms;
  for (const Expr& t : conjuncts(block->predicate)) {
    if (!mentions_any(t, reduction_vars)) {
      kept_terms.push_back(t);
      continue;
    }
    bool only_reduction = true;
    for_each_expr(t, [&](const Expr& x) {
      if (const Variable* v = x->as<Variable>(); v && !reduction_vars.count(v)) only_reduction = false;
    });
    if (!only_reduction)
      throw_error(DiagId::RfactorLoopOrder, stage_loc, name, factor_loop->var->name,
                  "shares a split guard with a loop that is not a reduction loop", name);
    sf_terms.push_back(substitute(t, loops_to_sf));
  }
  Expr sf_predicate = conjunction(sf_terms);

  // The factored stage.
  Stage sf;
  sf.name = sf_name;
  sf.loc = p.loc;
  std::vector<Expr> sf_shape = stage.buffer->shape;
  sf_shape.push_back(make_int(factor_extent));
  sf.buffer = BufferNode::make(sf_name, stage.buffer->dtype, sf_shape, MemScope::Global, BufferRole::Intermediate);
  sf.axes = sf_axes;
  std::vector<Expr> sf_index;
  for (const IterVar& a : sf_axes) sf_index.push_back(a.var);
  Expr source = substitute(reduce->source, to_sf);
  Expr identity = Reduce::identity(reduce->reduce_kind, reduce->type);
  Expr guarded_source = sf_predicate ? Select::make(sf_predicate, source, identity) : source;
  Stmt sf_init, sf_body;
  if (sf_reduce.empty()) {
    // L was the whole reduction: SF is the reduction's source, the identity where it is guarded off.
    // One store, as every elementwise stage (inline substitutes its value).
    sf.body = guarded_source;
    sf_body = Store::make(sf.buffer, sf_index, guarded_source);
  } else {
    sf.body = Reduce::make(reduce->reduce_kind, guarded_source, sf_reduce);
    sf_init = Store::make(sf.buffer, sf_index, identity);
    sf_body = Store::make(sf.buffer, sf_index,
                          Reduce::combine(reduce->reduce_kind, Load::make(sf.buffer, sf_index), source));
    if (sf_predicate) sf_body = IfThenElse::make(sf_predicate, sf_body);
  }
  std::vector<IterVar> sf_iter_vars = sf_axes;
  sf_iter_vars.insert(sf_iter_vars.end(), sf_reduce.begin(), sf_reduce.end());
  std::vector<Expr> unused_bindings(sf_iter_vars.size(), make_int(0));
  Stmt sf_block = Block::make(sf_name, sf_iter_vars, unused_bindings, nullptr, sf_init, sf_body);
  Stmt sf_nest = build_full_nest(sf_block->as<Block>());

  // S reduces SF over one loop named L.
  Var partial = Variable::make(factor_axis, factor_loop->var->type);
  Var partial_loop = Variable::make(factor_loop->var->name, factor_loop->var->type);
  std::vector<Expr> s_index, sf_read;
  for (size_t d = 0; d < n_spatial; ++d) s_index.push_back(block->iter_vars[d].var);
  sf_read = s_index;
  sf_read.push_back(partial);
  std::vector<IterVar> s_iter_vars(block->iter_vars.begin(), block->iter_vars.begin() + long(n_spatial));
  std::vector<Expr> s_bindings(block->bindings.begin(), block->bindings.begin() + long(n_spatial));
  s_iter_vars.push_back(IterVar{partial, make_int(0), make_int(factor_extent), true});
  s_bindings.push_back(partial_loop);
  Stmt s_body = Store::make(stage.buffer, s_index,
                            Reduce::combine(reduce->reduce_kind, Load::make(stage.buffer, s_index),
                                            Load::make(sf.buffer, sf_read)));
  Stmt s_block = Block::make(name, s_iter_vars, s_bindings, conjunction(kept_terms), block->init, s_body);
  Stmt s_loop = For::make(partial_loop, make_int(0), make_int(factor_extent), ForKind::Serial, s_block);

  // The definition uses the Block's variables, as every stage's does (cache_write relies on it).
  Stage s_def = stage;
  std::vector<Expr> def_read;
  for (const IterVar& a : stage.axes) def_read.push_back(a.var);
  def_read.push_back(partial);
  s_def.body = Reduce::make(reduce->reduce_kind, Load::make(sf.buffer, def_read), {s_iter_vars.back()});

  for (const For* l : reduction_loops)
    if (l != factor_loop) st.record_replaced(l->var->name, "rfactor", {sf_name + "." + axis_name(l->var->name, step)});
  st.replace(reduction_loops.front(), s_loop);
  st.func.body = insert_before_first_reader(st.func.body, sf_nest, sf.buffer.get());
  st.stages[name] = s_def;
  st.add_stage_before(sf, name, "rfactor", p.loc);
}

}  // namespace texc
