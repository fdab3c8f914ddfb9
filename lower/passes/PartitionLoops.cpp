#include "lower/passes/PartitionLoops.h"

#include <algorithm>
#include <optional>

#include "ir/Bounds.h"
#include "ir/ConstEval.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/LinearForm.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/passes/FreshCopy.h"
#include "lower/passes/LinearComparison.h"

namespace texc {

namespace {

constexpr int kMaxPartitionDepth = 3;
// Coefficients and bounds beyond this are not solved (keeps every step of the arithmetic exact).
constexpr int64_t kMaxMagnitude = int64_t(1) << 40;

void split_conjuncts(const Expr& e, std::vector<Expr>& out) {
  if (const Binary* b = e->as<Binary>(); b && b->op == BinaryOp::And) {
    split_conjuncts(b->a, out);
    split_conjuncts(b->b, out);
  } else {
    out.push_back(e);
  }
}

// The values of v for which `cond` holds whatever values the variables in `others` take in their
// intervals; nullopt when cond is not an inequality of i64 values linear in v, or a bound of the
// rest is unknown. One side of the result is unbounded.
std::optional<Interval> solve_always_true(const Expr& cond, const Variable* v, const VarIntervals& others) {
  auto c = linear_comparison(cond, v);
  if (!c) return std::nullopt;
  const int64_t bound = c->bound;
  const int64_t k = c->k;
  const Expr& rest = c->rest;
  Interval r = bounds_of(rest, others);
  if (!r.max || *r.max > kMaxMagnitude || *r.max < -kMaxMagnitude) return std::nullopt;
  // k*v + rest < bound for every rest <=> k*v < x.
  int64_t x = bound - *r.max;
  if (k > 0) return Interval{std::nullopt, floor_div(x - 1, k)};
  return Interval{floor_div(-x, -k) + 1, std::nullopt};
}

// The interval a loop's variable takes, from the intervals of the enclosing variables.
Interval loop_interval(const For* op, const VarIntervals& ranges) {
  Interval lo = bounds_of(op->min, ranges);
  Interval hi = bounds_of(simplify(op->min + op->extent - 1), ranges);
  return Interval{lo.min, hi.max};
}

// Solves every conjunct of the if conditions under a loop that mentions the loop's variable; the
// intersection of the solutions is the steady range, where every such conjunct holds.
class GuardSolver : public IRVisitor {
 public:
  GuardSolver(const Variable* v, VarIntervals ranges) : v_(v), ranges_(std::move(ranges)) {}
  std::optional<Interval> steady;

  void visit_expr(const Expr&) override {}

 protected:
  void visit(const For* op) override {
    ranges_[op->var.get()] = loop_interval(op, ranges_);
    IRVisitor::visit(op);
    ranges_.erase(op->var.get());
  }
  void visit(const LetStmt* op) override {
    if (op->value->type.is_integer() && op->value->type.is_scalar())
      ranges_[op->var.get()] = bounds_of(op->value, ranges_);
    IRVisitor::visit(op);
    ranges_.erase(op->var.get());
  }
  void visit(const IfThenElse* op) override {
    std::vector<Expr> conjuncts;
    split_conjuncts(op->cond, conjuncts);
    VarIntervals others = ranges_;
    others.erase(v_);
    for (const Expr& c : conjuncts) {
      if (!uses_var(c, v_)) continue;
      if (auto s = solve_always_true(c, v_, others)) steady = steady ? Interval::make_intersection(*steady, *s) : *s;
    }
    IRVisitor::visit(op);
  }

 private:
  const Variable* v_;
  VarIntervals ranges_;
};

class Partitioner : public IRMutator {
 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    int64_t mn, ext;
    bool partitionable = (op->for_kind == ForKind::Serial || op->for_kind == ForKind::Parallel) &&
                         is_const_int(op->min, &mn) && is_const_int(op->extent, &ext) && ext > 1 &&
                         depth_ < kMaxPartitionDepth;
    if (partitionable) {
      int64_t last = mn + ext - 1;
      VarIntervals ranges = ranges_;
      ranges[op->var.get()] = Interval::range(mn, last);
      GuardSolver solver(op->var.get(), std::move(ranges));
      solver.visit_stmt(op->body);
      if (solver.steady) {
        int64_t lo = solver.steady->min ? std::max(mn, *solver.steady->min) : mn;
        int64_t hi = solver.steady->max ? std::min(last, *solver.steady->max) : last;
        if (lo <= hi && (lo > mn || hi < last)) {
          if (op->for_kind == ForKind::Parallel) return partition_body(op, mn, lo, hi, last);
          std::vector<Stmt> parts;
          if (lo > mn) parts.push_back(make_part(op, mn, lo - 1, /*copy=*/true));
          parts.push_back(make_part(op, lo, hi, /*copy=*/false));
          if (hi < last) parts.push_back(make_part(op, hi + 1, last, /*copy=*/true));
          return Seq::make(std::move(parts));
        }
      }
    }
    if (Stmt tightened = tighten_guarded_loop(op)) return tightened;
    Expr mn_expr = mutate_expr(op->min), ext_expr = mutate_expr(op->extent);
    Stmt body = with_range(op->var.get(), loop_interval(op, ranges_), [&] { return mutate_stmt(op->body); });
    if (mn_expr == op->min && ext_expr == op->extent && body == op->body) return self;
    return op->with_range(mn_expr, ext_expr, body);
  }

  Stmt mutate(const LetStmt* op, const Stmt& self) override {
    Expr value = mutate_expr(op->value);
    bool integer = value->type.is_integer() && value->type.is_scalar();
    Interval r = integer ? bounds_of(value, ranges_) : Interval::everything();
    Stmt body = with_range(op->var.get(), r, [&] { return mutate_stmt(op->body); });
    if (value == op->value && body == op->body) return self;
    return LetStmt::make(op->var, value, body);
  }

  Stmt mutate(const IfThenElse* op, const Stmt& self) override {
    std::vector<Expr> conjuncts, kept;
    split_conjuncts(op->cond, conjuncts);
    for (const Expr& c : conjuncts) {
      if (can_prove(Not::make(c), ranges_)) return op->else_case ? mutate_stmt(op->else_case) : make_no_op();
      if (!can_prove(c, ranges_)) kept.push_back(c);
    }
    Stmt then_case = mutate_stmt(op->then_case);
    if (kept.empty()) return then_case;
    Stmt else_case = mutate_stmt(op->else_case);
    Expr cond = kept.size() == conjuncts.size() ? op->cond : kept[0];
    if (kept.size() != conjuncts.size())
      for (size_t i = 1; i < kept.size(); ++i) cond = Binary::make(BinaryOp::And, cond, kept[i]);
    if (cond == op->cond && then_case == op->then_case && else_case == op->else_case) return self;
    return IfThenElse::make(cond, then_case, else_case);
  }

 private:
  // A parallel loop keeps all its iterations (a tail taken out of it would run after the others,
  // on one thread or as a loop of its own): its body becomes `if (v < lo) {head} else if (v <= hi)
  // {steady} else {tail}`, each version simplified for its range, the head and tail fresh copies.
  Stmt partition_body(const For* op, int64_t mn, int64_t lo, int64_t hi, int64_t last) {
    ++depth_;
    auto version = [&](int64_t a, int64_t b, bool copy) {
      Stmt body = copy ? fresh_copy(op->body) : op->body;
      return with_range(op->var.get(), Interval::range(a, b), [&] { return mutate_stmt(body); });
    };
    Expr v = op->var;
    Stmt body = version(lo, hi, /*copy=*/false);
    if (hi < last) body = IfThenElse::make(v <= make_int(hi, v->type), body, version(hi + 1, last, true));
    if (lo > mn) body = IfThenElse::make(v < make_int(lo, v->type), version(mn, lo - 1, true), body);
    --depth_;
    return op->with_range(op->min, op->extent, body);
  }

  template <typename F>
  Stmt with_range(const Variable* v, const Interval& r, F f) {
    ranges_[v] = r;
    Stmt out = f();
    ranges_.erase(v);
    return out;
  }

  // A Vectorized or Unrolled loop (never partitioned: its extent stays a constant) whose whole body
  // is `if (cond) S` with cond true exactly on [a, b] of its range (solved, and provably false on
  // the rest) becomes the loop over [a, b] of S: a tail of a split keeps a narrower full vector.
  Stmt tighten_guarded_loop(const For* op) {
    int64_t mn, ext;
    const IfThenElse* guard = op->body->as<IfThenElse>();
    if ((op->for_kind != ForKind::Vectorized && op->for_kind != ForKind::Unrolled) || !guard || guard->else_case ||
        !is_const_int(op->min, &mn) || !is_const_int(op->extent, &ext) || ext < 2)
      return nullptr;
    int64_t last = mn + ext - 1;
    VarIntervals ranges = ranges_;
    ranges[op->var.get()] = Interval::range(mn, last);
    GuardSolver solver(op->var.get(), ranges);
    solver.visit_stmt(op->body);
    if (!solver.steady) return nullptr;
    int64_t lo = solver.steady->min ? std::max(mn, *solver.steady->min) : mn;
    int64_t hi = solver.steady->max ? std::min(last, *solver.steady->max) : last;
    if (lo > hi || (lo == mn && hi == last)) return nullptr;
    std::vector<Expr> conjuncts;
    split_conjuncts(guard->cond, conjuncts);
    auto false_on = [&](int64_t a, int64_t b) {
      if (a > b) return true;
      VarIntervals outside = ranges_;
      outside[op->var.get()] = Interval::range(a, b);
      for (const Expr& c : conjuncts)
        if (can_prove(Not::make(c), outside)) return true;
      return false;
    };
    if (!false_on(mn, lo - 1) || !false_on(hi + 1, last)) return nullptr;
    Stmt body = with_range(op->var.get(), Interval::range(lo, hi), [&] { return mutate_stmt(op->body); });
    return op->with_range(make_int(lo, op->var->type), make_int(hi - lo + 1, op->var->type), body);
  }

  // The part [a, b] of loop op: a loop over fresh variables (or the original ones), or the body at
  // a single point.
  Stmt make_part(const For* op, int64_t a, int64_t b, bool copy) {
    ++depth_;
    Stmt part;
    if (a == b) {
      Stmt body = substitute(op->body, VarMap{{op->var.get(), make_int(a, op->var->type)}});
      part = mutate_stmt(fresh_copy(body));
    } else {
      Var v = op->var;
      Stmt body = op->body;
      if (copy) {
        v = Variable::make(op->var->name, op->var->type);
        body = fresh_copy(substitute(op->body, VarMap{{op->var.get(), v}}));
      }
      body = with_range(v.get(), Interval::range(a, b), [&] { return mutate_stmt(body); });
      part = For::make(v, make_int(a, v->type), make_int(b - a + 1, v->type), op->for_kind, body, op->thread_tag);
    }
    --depth_;
    return part;
  }

  VarIntervals ranges_;
  int depth_ = 0;
};

}  // namespace

Stmt partition_loops(const Stmt& s) { return Partitioner().mutate_stmt(s); }

}  // namespace texc
