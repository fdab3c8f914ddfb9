#include "lower/passes/UnswitchRaggedVectors.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ir/ExprOrder.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/LinearForm.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/Remarks.h"
#include "lower/passes/FreshCopy.h"
#include "lower/passes/LinearComparison.h"
#include "lower/passes/VectorizeLoops.h"

namespace texc {

namespace {

constexpr int kMaxLanes = 64;  // as vectorize_loops

bool is_ramp_or_broadcast(const Expr& e) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) { found = found || x->as<Ramp>() || x->as<Broadcast>(); });
  return found;
}

void split_conjuncts(const Expr& e, std::vector<Expr>& out) {
  if (const Binary* b = e->as<Binary>(); b && b->op == BinaryOp::And) {
    split_conjuncts(b->a, out);
    split_conjuncts(b->b, out);
  } else {
    out.push_back(e);
  }
}

// A lane guard `cond` over v solved: v <= bound (upper) or v >= bound (lower); nullopt unless cond
// is a comparison of i64 values linear in v (then the lanes where it holds are one interval).
struct LaneBound {
  bool upper;
  Expr bound;
};
std::optional<LaneBound> solve_lane_guard(const Expr& cond, const Variable* v) {
  auto c = linear_comparison(cond, v);
  if (!c) return std::nullopt;
  const int64_t bound = c->bound;
  const int64_t k = c->k;
  const Expr& rest = c->rest;
  // k*v + rest < bound: v <= floor((bound - 1 - rest) / k) for k > 0, v >= floor((rest - bound) / -k) + 1
  // for k < 0 (Div is floor division).
  if (k > 0) return LaneBound{true, simplify((make_int(bound - 1) - rest) / make_int(k))};
  return LaneBound{false, simplify((rest - make_int(bound)) / make_int(-k) + make_int(1))};
}

class DropGuards : public IRMutator {
 public:
  explicit DropGuards(const std::vector<Expr>& guards) : guards_(guards) {}

 protected:
  Stmt mutate(const IfThenElse* op, const Stmt& self) override {
    std::vector<Expr> conjuncts, kept;
    split_conjuncts(op->cond, conjuncts);
    for (const Expr& c : conjuncts)
      if (std::none_of(guards_.begin(), guards_.end(), [&](const Expr& g) { return same_expr(g, c); }))
        kept.push_back(c);
    Stmt then_case = mutate_stmt(op->then_case);
    if (kept.size() == conjuncts.size()) return then_case == op->then_case ? self : IfThenElse::make(op->cond, then_case, op->else_case);
    if (kept.empty()) return then_case;
    Expr cond = kept[0];
    for (size_t i = 1; i < kept.size(); ++i) cond = Binary::make(BinaryOp::And, cond, kept[i]);
    return IfThenElse::make(cond, then_case, op->else_case);
  }

 private:
  const std::vector<Expr>& guards_;
};

}  // namespace

// Whether every effect of a loop body outside its own allocations (a store to another buffer, an
// extern call) is under an if whose condition has a lane guard: only then may the tail version run
// just the lanes where the guards hold. A statement outside the guarded ifs (a partial sum's store
// beside a guarded ragged term, schedule_fuzz int8_matmul case 22454) must run on every lane.
class EffectsGuarded : public IRVisitor {
 public:
  EffectsGuarded(const Variable* v) : v_(v) {}
  bool ok = true;

  void visit(const Allocate* op) override {
    local_.insert(op->buffer.get());
    IRVisitor::visit(op);
  }
  void visit(const IfThenElse* op) override {
    if (uses_var(op->cond, v_)) {
      ++guarded_;
      visit_stmt(op->then_case);
      --guarded_;
      if (op->else_case) ok = false;
      return;
    }
    IRVisitor::visit(op);
  }
  void visit(const Store* op) override {
    if (!guarded_ && !local_.count(op->buffer.get())) ok = false;
    IRVisitor::visit(op);
  }
  void visit(const Evaluate* op) override {
    if (!guarded_) ok = false;
    IRVisitor::visit(op);
  }

 private:
  const Variable* v_;
  int guarded_ = 0;
  std::unordered_set<const BufferNode*> local_;
};

// The guards on the lanes of a vectorized loop: the conjuncts of if conditions in its body that
// mention its variable. Usable when each is a linear comparison (solve_lane_guard) using no
// variable bound inside the body, no such if has an else, every such if has all of them (so the
// lanes that run the guarded statements are one interval, the same for all of them), and every
// effect of the body is under such an if (EffectsGuarded).
std::optional<std::vector<Expr>> lane_guards(const For* loop) {
  const Variable* v = loop->var.get();
  std::unordered_set<const Variable*> bound;
  for_each_stmt(loop->body, [&](const Stmt& s) {
    if (const For* f = s->as<For>()) bound.insert(f->var.get());
    if (const LetStmt* l = s->as<LetStmt>()) bound.insert(l->var.get());
  });
  for_each_expr(loop->body, [&](const Expr& e) {
    if (const Let* l = e->as<Let>()) bound.insert(l->var.get());
  });
  auto uses_bound = [&](const Expr& e) {
    bool found = false;
    for_each_expr(e, [&](const Expr& x) {
      if (const Variable* u = x->as<Variable>(); u && bound.count(u)) found = true;
    });
    return found;
  };
  auto contains = [](const std::vector<Expr>& list, const Expr& e) {
    return std::any_of(list.begin(), list.end(), [&](const Expr& x) { return same_expr(x, e); });
  };
  std::vector<Expr> guards;
  std::vector<std::vector<Expr>> per_if;
  bool ok = true;
  for_each_stmt(loop->body, [&](const Stmt& s) {
    const IfThenElse* i = s->as<IfThenElse>();
    if (!i || !ok) return;
    std::vector<Expr> conjuncts, mine;
    split_conjuncts(i->cond, conjuncts);
    for (const Expr& c : conjuncts) {
      if (!uses_var(c, v)) continue;
      if (i->else_case || uses_bound(c) || !solve_lane_guard(c, v)) ok = false;
      if (!contains(mine, c)) mine.push_back(c);
      if (!contains(guards, c)) guards.push_back(c);
    }
    if (!mine.empty()) per_if.push_back(std::move(mine));
  });
  if (!ok || guards.empty()) return std::nullopt;
  EffectsGuarded effects(v);
  effects.visit_stmt(loop->body);
  if (!effects.ok) return std::nullopt;
  for (const auto& mine : per_if)
    if (mine.size() != guards.size()) return std::nullopt;
  return guards;
}

Stmt drop_lane_guards(const Stmt& body, const std::vector<Expr>& guards) { return DropGuards(guards).mutate_stmt(body); }

namespace {

// A vectorized loop with lane guards, unswitched: `all_lanes` holds when every guard holds on its
// first and last lane (then on all of them: each guard is linear in the loop's variable); `full`
// is the loop without its guards; tail() runs the lanes [lo, hi] where the guards hold as vectors
// of decreasing powers of two, the binary digits of their count n (32 lanes: 16, 8, 4, 2, 1).
struct RaggedLoop {
  const For* loop;
  int64_t lanes;
  Stmt body;  // without the guards
  Expr all_lanes, lo, hi;
  Stmt full;

  // n < lanes unless `may_be_full` (the tail version of a check of other loops' guards too).
  Stmt tail(bool may_be_full) const {
    const Variable* v = loop->var.get();
    Type t = loop->var->type;
    // lo stays an expression when it is the loop's min (no guard bounds it from below).
    Var lo_var = Variable::make(loop->var->name + ".tail_lo", t);
    bool bind_lo = !same_expr(lo, loop->min);
    Expr start = bind_lo ? Expr(lo_var) : lo;
    Var n = Variable::make(loop->var->name + ".tail_n", t);
    std::vector<Stmt> pieces;
    for (int64_t w = top(may_be_full); w >= 1; w /= 2) {
      // The piece of w lanes starts after the digits of n above w.
      Expr offset = w * 2 > (may_be_full ? lanes : lanes - 1) ? start : start + n / make_int(2 * w, t) * make_int(2 * w, t);
      Var pv = Variable::make(loop->var->name, t);
      Stmt piece_body = fresh_copy(substitute(body, VarMap{{v, pv}}));
      Stmt piece = For::make(pv, simplify(offset), make_int(w, t), w > 1 ? ForKind::Vectorized : ForKind::Serial, piece_body);
      Expr digit = w == 1 ? n % make_int(2, t) : n / make_int(w, t) % make_int(2, t);
      pieces.push_back(IfThenElse::make(Binary::make(BinaryOp::EQ, digit, make_int(1, t)), piece));
    }
    Stmt tail = LetStmt::make(n, simplify(max(hi - start + make_int(1, t), make_int(0, t))), Seq::make(std::move(pieces)));
    return bind_lo ? LetStmt::make(lo_var, simplify(lo), tail) : tail;
  }
  // The widest piece: the largest power of two <= the most lanes a tail has.
  int64_t top(bool may_be_full) const {
    int64_t w = 1;
    while (w * 2 <= (may_be_full ? lanes : lanes - 1)) w *= 2;
    return w;
  }
  // The pieces' widths below the full vector, for the remark: "16, 8, 4, 2".
  std::string widths() const {
    std::string out;
    for (int64_t w = top(false); w > 1; w /= 2) out += (out.empty() ? "" : ", ") + std::to_string(w);
    return out;
  }
};

std::optional<RaggedLoop> unswitch_ragged(const For* loop) {
  int64_t lanes;
  if (loop->for_kind != ForKind::Vectorized || !is_const_int(loop->extent, &lanes) || lanes < 2 ||
      lanes > kMaxLanes || is_ramp_or_broadcast(loop->min))
    return std::nullopt;
  bool nested = false;
  for_each_stmt(loop->body, [&](const Stmt& s) {
    if (const For* f = s->as<For>(); f && f->for_kind == ForKind::Vectorized) nested = true;
  });
  if (nested) return std::nullopt;
  auto guards = lane_guards(loop);
  if (!guards) return std::nullopt;
  const Variable* v = loop->var.get();
  Stmt body = drop_lane_guards(loop->body, *guards);
  Stmt full = For::make(loop->var, loop->min, loop->extent, ForKind::Vectorized, body);
  if (!vectorizes(full->as<For>())) return std::nullopt;

  Expr first = loop->min, last = simplify(loop->min + make_int(lanes - 1, loop->min->type));
  Expr all_lanes, lo = first, hi = last;
  for (const Expr& g : *guards) {
    Expr both = Binary::make(BinaryOp::And, substitute(g, VarMap{{v, first}}), substitute(g, VarMap{{v, last}}));
    all_lanes = all_lanes ? Binary::make(BinaryOp::And, all_lanes, both) : both;
    LaneBound b = *solve_lane_guard(g, v);
    if (b.upper)
      hi = min(hi, b.bound);
    else
      lo = max(lo, b.bound);
  }
  return RaggedLoop{loop, lanes, body, simplify(all_lanes), simplify(lo), simplify(hi), full};
}

void report_ragged(const For* loop, const std::string& widths, const Variable* checked_per) {
  report_remark({PendingRemark::Subject::Loop, loop->var->name,
                 "vectorized loop '" + loop->var->name + "' keeps vector code on its ragged tail: full vectors of " +
                     to_string(loop->extent) + " lanes where its guard holds on every lane (checked once per " +
                     (checked_per ? "iteration of '" + checked_per->name + "'" : std::string("execution of the loop")) +
                     "), else the lanes that pass it as " + (widths.empty() ? "" : "vectors of " + widths + " lanes and ") +
                     "one scalar lane"});
}

// A vectorized loop of a constant lane count L > 16 that is not a power of two (the tail of a split,
// tightened by partition_loops: 31 of a 32-lane split) becomes consecutive vectorized loops of the
// largest power of two <= L lanes and the rest (31: 16 + 15), so no vector is wider than a
// power-of-two register multiple plus one partial register. Null when it does not apply.
Stmt split_wide_ragged(const For* op) {
  int64_t lanes;
  if (!is_const_int(op->extent, &lanes) || lanes <= 16 || lanes > kMaxLanes || (lanes & (lanes - 1)) == 0 ||
      !vectorizes(op))
    return nullptr;
  std::vector<Stmt> pieces;
  Expr start = op->min;
  for (int64_t left = lanes; left > 0;) {
    int64_t w = 1;
    while (w * 2 <= left) w *= 2;
    if (left <= 16) w = left;
    Var pv = Variable::make(op->var->name, op->var->type);
    Stmt body = fresh_copy(substitute(op->body, VarMap{{op->var.get(), pv}}));
    pieces.push_back(For::make(pv, simplify(start), make_int(w, op->var->type), ForKind::Vectorized, body));
    start = start + make_int(w, op->var->type);
    left -= w;
  }
  return Seq::make(std::move(pieces));
}

// Unswitches the lane guards of vectorized loops (unswitch_ragged) as far out as they are
// invariant: inside the outermost loop whose variable the check uses and whose body binds none of
// its variables, the body is versioned once, `if (every check) body with full vectors else body
// with tails`, so the steady version is as straight as a dividing shape's. A loop whose check is
// not invariant in any enclosing loop is unswitched where it stands.
class RaggedUnswitcher : public IRMutator {
 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    if (op->for_kind == ForKind::Vectorized) {
      if (Stmt pieces = split_wide_ragged(op)) return pieces;
      auto r = unswitch_ragged(op);
      if (!r) return self;
      report_ragged(op, r->widths(), nullptr);
      return IfThenElse::make(r->all_lanes, r->full, fresh_copy(r->tail(false)));
    }
    // The variables bound inside the body: a check using one cannot move out to here.
    std::unordered_set<const Variable*> bound;
    for_each_stmt(op->body, [&](const Stmt& s) {
      if (const For* f = s->as<For>()) bound.insert(f->var.get());
      if (const LetStmt* l = s->as<LetStmt>()) bound.insert(l->var.get());
    });
    std::unordered_map<const StmtNode*, RaggedLoop> hoisted;
    std::vector<Expr> checks;
    for_each_stmt(op->body, [&](const Stmt& s) {
      const For* loop = s->as<For>();
      if (!loop || loop->for_kind != ForKind::Vectorized) return;
      auto r = unswitch_ragged(loop);
      if (!r || !uses_var(r->all_lanes, op->var.get())) return;
      bool inner = false;
      for_each_expr(r->all_lanes, [&](const Expr& x) {
        if (const Variable* u = x->as<Variable>(); u && bound.count(u)) inner = true;
      });
      if (inner) return;
      report_ragged(loop, r->widths(), op->var.get());
      if (std::none_of(checks.begin(), checks.end(), [&](const Expr& c) { return same_expr(c, r->all_lanes); }))
        checks.push_back(r->all_lanes);
      hoisted.emplace(s.get(), std::move(*r));
    });
    if (hoisted.empty()) return IRMutator::mutate(op, self);
    Expr all = checks[0];
    for (size_t i = 1; i < checks.size(); ++i) all = Binary::make(BinaryOp::And, all, checks[i]);
    // With one check, a loop in the tail version fails its own: its tail is narrower than a vector.
    Stmt full = ReplaceLoops(hoisted, /*full=*/true, false).mutate_stmt(op->body);
    Stmt tail = fresh_copy(ReplaceLoops(hoisted, /*full=*/false, checks.size() > 1).mutate_stmt(op->body));
    Stmt body = IfThenElse::make(simplify(all), mutate_stmt(full), mutate_stmt(tail));
    return op->with_range(op->min, op->extent, body);
  }

 private:
  class ReplaceLoops : public IRMutator {
   public:
    ReplaceLoops(const std::unordered_map<const StmtNode*, RaggedLoop>& loops, bool full, bool may_be_full)
        : loops_(loops), full_(full), may_be_full_(may_be_full) {}
    Stmt mutate_stmt(const Stmt& s) override {
      if (!s) return s;
      auto it = loops_.find(s.get());
      if (it != loops_.end()) return full_ ? it->second.full : it->second.tail(may_be_full_);
      return IRMutator::mutate_stmt(s);
    }

   private:
    const std::unordered_map<const StmtNode*, RaggedLoop>& loops_;
    bool full_, may_be_full_;
  };
};

}  // namespace

Stmt unswitch_ragged_vectors(const Stmt& s) { return RaggedUnswitcher().mutate_stmt(s); }

}  // namespace texc
