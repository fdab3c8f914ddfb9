#include "lower/gpu/RegisterTileGuards.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/gpu/MmaIntrinsics.h"

namespace texc {
namespace {

using VarSet = std::unordered_set<const Variable*>;

bool mentions_any(const Expr& e, const VarSet& vars) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) {
    if (const Variable* v = x->as<Variable>(); v && vars.count(v)) found = true;
  });
  return found;
}

bool is_register_or_shared(const Buffer& b) { return b->scope == MemScope::Local || b->scope == MemScope::Shared; }

// True when computing `s` at a point past the tensor's edge cannot fault or have an effect beyond
// the thread's own buffers: it stores only into `local` buffers, reads only `local` and `shared`
// ones, calls only pure functions and divides integers only by non-zero constants (a fused loop's
// index); a divisor read from memory could be zero past the edge.
bool safe_to_overcompute(const Stmt& s) {
  bool safe = true;
  for_each_stmt(s, [&](const Stmt& x) {
    if (const Store* st = x->as<Store>(); st && st->buffer->scope != MemScope::Local) safe = false;
  });
  for_each_expr(s, [&](const Expr& x) {
    if (const Load* l = x->as<Load>(); l && !is_register_or_shared(l->buffer)) safe = false;
    if (const Call* c = x->as<Call>()) {
      if (c->call_kind == CallKind::Extern) safe = false;
      if (c->call_kind == CallKind::Intrinsic) {
        std::optional<Intrinsic> which = intrinsic_of(c);
        // a tensor-core step updates only the lane's own accumulator elements (its Load arguments,
        // checked like every load): the lanes past the edge compute garbage rows and columns
        const bool pure = which && intrinsic_effect(*which) == IntrinsicEffect::Pure && *which != Intrinsic::ShuffleDown;
        if (!pure && !(which && is_mma(*which))) safe = false;
      }
    }
    int64_t divisor = 0;
    if (const Binary* b = x->as<Binary>(); b && (b->op == BinaryOp::Div || b->op == BinaryOp::Mod) &&
                                           !b->type.is_float() && !(is_const_int(b->b, &divisor) && divisor != 0))
      safe = false;
  });
  return safe;
}

// Every access of every buffer in the function: its indices with the iter vars of its Block
// replaced by their bindings, the block loops (blockIdx.*) around it, and the ranges of the other
// loops around it.
class AccessesOfBuffers : public IRVisitor {
 public:
  struct Access {
    std::vector<Expr> indices;
    std::vector<const For*> block_loops;
    SymVarIntervals inner_ranges;
    std::vector<const For*> loops;  // every loop around it, outermost first
  };
  explicit AccessesOfBuffers(const Stmt& body) { visit_stmt(body); }
  const std::vector<Access>& of(const BufferNode* b) const {
    static const std::vector<Access> none;
    auto it = accesses_.find(b);
    return it == accesses_.end() ? none : it->second;
  }

 protected:
  void visit(const For* op) override {
    bool block = op->for_kind == ForKind::ThreadBound && thread_level(op->thread_tag) == ThreadLevel::Block;
    if (block) {
      block_loops_.push_back(op);
    } else {
      inner_ranges_[op->var.get()] = {op->min, simplify(op->min + op->extent - 1)};
    }
    loops_.push_back(op);
    IRVisitor::visit(op);
    loops_.pop_back();
    if (block) block_loops_.pop_back();
    else inner_ranges_.erase(op->var.get());
  }
  void visit(const Block* op) override {
    VarMap saved = iter_values_;
    for (size_t i = 0; i < op->iter_vars.size(); ++i) iter_values_[op->iter_vars[i].var.get()] = op->bindings[i];
    IRVisitor::visit(op);
    iter_values_ = std::move(saved);
  }
  void visit(const Load* op) override {
    record(op->buffer.get(), op->indices);
    IRVisitor::visit(op);
  }
  void visit(const Store* op) override {
    record(op->buffer.get(), op->indices);
    IRVisitor::visit(op);
  }

 private:
  void record(const BufferNode* b, const std::vector<Expr>& indices) {
    Access a{{}, block_loops_, inner_ranges_, loops_};
    for (const Expr& i : indices) a.indices.push_back(iter_values_.empty() ? i : substitute(i, iter_values_));
    accesses_[b].push_back(std::move(a));
  }
  std::vector<const For*> block_loops_;
  SymVarIntervals inner_ranges_;
  std::vector<const For*> loops_;
  VarMap iter_values_;
  std::unordered_map<const BufferNode*, std::vector<Access>> accesses_;
};

// True when plan_storage will allocate `b` inside `block_loop` (null: the kernel has none) at the
// whole span of dimension `d` that its accesses reach: every access lies under `block_loop`, and
// the union of their spans over the loops inside the block loops, but those around every access
// (plan_storage allocates inside them: a shared tile per k step), is smaller than the full shape
// (plan_storage allocates a span as large as the full shape as the full shape, unshifted, and an
// access past the tensor's edge would leave it), or is the full shape from 0.
bool allocated_at_its_span(const AccessesOfBuffers& accesses, const BufferNode* b, size_t d, const For* block_loop) {
  int64_t full = 0, extent = 0;
  if (d >= b->shape.size() || !is_const_int(b->shape[d], &full)) return false;
  const std::vector<AccessesOfBuffers::Access>& all = accesses.of(b);
  std::unordered_set<const For*> around_all;  // the loops around every access
  for (size_t i = 0; i < all.size(); ++i) {
    std::unordered_set<const For*> loops(all[i].loops.begin(), all[i].loops.end());
    if (i == 0) around_all = std::move(loops);
    else std::erase_if(around_all, [&](const For* l) { return !loops.count(l); });
  }
  Expr lo, hi;
  for (const AccessesOfBuffers::Access& a : all) {
    if (block_loop && std::find(a.block_loops.begin(), a.block_loops.end(), block_loop) == a.block_loops.end())
      return false;
    if (d >= a.indices.size()) return false;
    SymVarIntervals inside = a.inner_ranges;
    for (const For* l : around_all)  // held at one value, but those with only one
      if (!is_const_int(l->extent, int64_t(1))) inside.erase(l->var.get());
    for (const For* l : a.block_loops)  // a grid of one block along a dimension: blockIdx is 0 there
      if (is_const_int(l->extent, int64_t(1))) inside[l->var.get()] = {l->min, l->min};
    SymInterval span = sym_bounds_of(a.indices[d], inside);
    if (!span.is_bounded()) return false;
    lo = lo ? union_min(lo, span.min) : span.min;
    hi = hi ? union_max(hi, span.max) : span.max;
  }
  // a span of the full shape that starts at 0 is allocated as the full shape and holds every
  // access too (a dimension the tile covers whole: a warp's rows when the tile is the tensor's)
  if (!lo || !is_const_int(simplify(hi - lo + 1), &extent)) return false;
  if (extent < full) return true;
  // lo over the loops it names (a block loop of one iteration at its value)
  SymVarIntervals named = all.front().inner_ranges;
  for (const For* l : all.front().block_loops)
    if (is_const_int(l->extent, int64_t(1))) named[l->var.get()] = {l->min, l->min};
  const SymInterval start = sym_bounds_of(lo, named);
  return extent == full && start.is_bounded() && is_const_int(simplify(start.min), int64_t(0)) &&
         is_const_int(simplify(start.max), int64_t(0));
}

// True when the points past the edge access `s`'s buffers (the Block's body or init, iter vars
// replaced by their bindings) inside the allocations plan_storage will make: a dimension whose
// index mentions a variable of the dropped conjuncts (`edge_vars`) is allocated at the whole span
// of its accesses (allocated_at_its_span), which plan_storage computes over the loops' ranges, the
// points past the edge included; any other index takes at a point past the edge a value it takes
// at a point inside (the caller checks that one exists), so it stays where the guarded code
// accessed.
bool accesses_fit_their_buffers(const Stmt& s, const VarSet& edge_vars, const AccessesOfBuffers& accesses,
                                const For* block_loop) {
  bool fit = true;
  auto check = [&](const Buffer& b, const std::vector<Expr>& indices) {
    for (size_t d = 0; d < indices.size() && fit; ++d)
      if (mentions_any(indices[d], edge_vars) && !allocated_at_its_span(accesses, b.get(), d, block_loop)) fit = false;
  };
  for_each_stmt(s, [&](const Stmt& x) {
    if (const Store* st = x->as<Store>()) check(st->buffer, st->indices);
  });
  for_each_expr(s, [&](const Expr& x) {
    if (const Load* l = x->as<Load>()) check(l->buffer, l->indices);
  });
  return fit;
}

class RegisterTileGuardDropper : public IRMutator {
 public:
  explicit RegisterTileGuardDropper(const AccessesOfBuffers& accesses) : accesses_(accesses) {}

 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    loops_.push_back(op);
    Stmt s = IRMutator::mutate(op, self);
    loops_.pop_back();
    return s;
  }
  Stmt mutate(const Block* op, const Stmt& self) override {
    if (!op->predicate || !safe_to_overcompute(op->body) || (op->init && !safe_to_overcompute(op->init))) return self;
    VarSet reduce_loops;
    for (size_t i = 0; i < op->iter_vars.size(); ++i)
      if (op->iter_vars[i].is_reduce)
        for_each_expr(op->bindings[i], [&](const Expr& x) {
          if (const Variable* v = x->as<Variable>()) reduce_loops.insert(v);
        });
    VarIntervals ranges;              // every loop of constant range
    VarSet inner;                     // the variables of the loops inside the block loops
    VarMap at_min;
    const For* block_loop = nullptr;  // the innermost block loop
    for (const For* l : loops_) {
      if (l->for_kind == ForKind::ThreadBound && reduce_loops.count(l->var.get())) return self;
      int64_t lo = 0, extent = 0;
      if (is_const_int(l->min, &lo) && is_const_int(l->extent, &extent) && extent > 0)
        ranges[l->var.get()] = Interval::range(lo, lo + extent - 1);
      if (l->for_kind == ForKind::ThreadBound && thread_level(l->thread_tag) == ThreadLevel::Block) {
        block_loop = l;
        continue;
      }
      inner.insert(l->var.get());
      at_min[l->var.get()] = l->min;
    }
    std::vector<Expr> kept, dropped;
    for (const Expr& t : conjuncts(op->predicate)) (mentions_any(t, reduce_loops) ? kept : dropped).push_back(t);
    if (dropped.empty()) return self;
    // The variables of the inner loops that the dropped conjuncts mention: no kept conjunct may
    // mention them, and with them at their loops' mins every dropped conjunct holds in every block,
    // so every point past the edge has a point inside with the same values of the other variables.
    VarSet edge_vars;
    for (const Expr& t : dropped)
      for_each_expr(t, [&](const Expr& x) {
        if (const Variable* v = x->as<Variable>(); v && inner.count(v)) edge_vars.insert(v);
      });
    for (const Expr& t : kept)
      if (mentions_any(t, edge_vars)) return self;
    for (const Expr& t : dropped)
      if (!can_prove(substitute(t, at_min), ranges)) return self;
    VarMap iter_values;
    for (size_t i = 0; i < op->iter_vars.size(); ++i) iter_values[op->iter_vars[i].var.get()] = op->bindings[i];
    if (!accesses_fit_their_buffers(substitute(op->body, iter_values), edge_vars, accesses_, block_loop) ||
        (op->init && !accesses_fit_their_buffers(substitute(op->init, iter_values), edge_vars, accesses_, block_loop)))
      return self;
    Expr predicate;
    for (const Expr& t : kept) predicate = predicate ? logical_and(predicate, t) : t;
    return Block::make(op->stage, op->iter_vars, op->bindings, predicate, op->init, op->body);
  }

 private:
  const AccessesOfBuffers& accesses_;
  std::vector<const For*> loops_;
};

class InvariantGuardHoister : public IRMutator {
 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    Stmt s = IRMutator::mutate(op, self);
    const For* loop = s->as<For>();
    if (!loop || (loop->for_kind != ForKind::Serial && loop->for_kind != ForKind::Unrolled)) return s;
    const IfThenElse* guard = loop->body->as<IfThenElse>();
    if (!guard || guard->else_case || uses_var(guard->cond, loop->var.get())) return s;
    return IfThenElse::make(guard->cond, loop->with_body(guard->then_case));
  }
};

}  // namespace

void drop_register_tile_guards(ScheduleState& st) {
  AccessesOfBuffers accesses(st.func.body);
  st.func.body = RegisterTileGuardDropper(accesses).mutate_stmt(st.func.body);
}

Stmt hoist_invariant_guards(const Stmt& body) { return InvariantGuardHoister().mutate_stmt(body); }

}  // namespace texc
