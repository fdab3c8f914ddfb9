// The simplifier's rules for statements.
//
// Guarantees (the result has the same effects as the input):
//  - Loop variables get their ranges (For(v, min, extent): v in [min, min + extent - 1]) while
//    their bodies are simplified, Block iter vars theirs (lets: Simplify.cpp).
//  - The then-branch of an if knows the facts of its condition (`v < e` bounds v; && splits),
//    the else-branch those of its negation. An if whose condition the bounds decide becomes the
//    taken branch; an empty then-branch with an else becomes `if (!cond) else`.
//  - A loop of extent <= 0 is removed; a loop of extent 1 becomes its body with the variable
//    replaced by the loop's min (except ThreadBound loops). A Block whose predicate is provably
//    true drops it, provably false removes the Block.
//  - Statements with no effect (the Evaluate of a constant, loops and allocations around
//    nothing) are removed; Seqs drop their no-ops. An empty Seq is the canonical no-op.
#include "ir/Simplify.h"
#include "ir/SimplifyInternal.h"
#include "ir/Substitute.h"

namespace texc::simplify_internal {

// Facts that hold where cond is `truth`: intervals of variables compared with bounded values.
void Simplifier::collect_facts(const Expr& cond, bool truth, std::vector<std::pair<const Variable*, Interval>>& out) {
  if (const Not* n = cond->as<Not>()) return collect_facts(n->a, !truth, out);
  const Binary* b = cond->as<Binary>();
  if (!b) return;
  if ((b->op == BinaryOp::And && truth) || (b->op == BinaryOp::Or && !truth)) {
    collect_facts(b->a, truth, out);
    collect_facts(b->b, truth, out);
    return;
  }
  if (!is_comparison(b->op) || !b->a->type.is_scalar() || !b->a->type.is_int()) return;
  BinaryOp op = truth ? b->op : negate_comparison(b->op);
  Expr var = b->a, other = b->b;
  if (!var->as<Variable>()) {
    std::swap(var, other);
    op = mirror_comparison(op);
  }
  const Variable* v = var->as<Variable>();
  if (!v || uses_var(other, v)) return;
  Interval o = bounds(other);
  Interval fact;
  switch (op) {
    case BinaryOp::LT: if (o.max) fact.max = *o.max - 1; break;
    case BinaryOp::LE: fact.max = o.max; break;
    case BinaryOp::GT: if (o.min) fact.min = *o.min + 1; break;
    case BinaryOp::GE: fact.min = o.min; break;
    case BinaryOp::EQ: fact = o; break;
    default: return;
  }
  out.push_back({v, fact});
}

Stmt Simplifier::mutate_with_facts(const Stmt& s, const Expr& cond, bool truth) {
  if (!s) return s;
  std::vector<std::pair<const Variable*, Interval>> facts;
  collect_facts(cond, truth, facts);
  std::vector<std::unique_ptr<ScopedRange>> scopes;
  for (auto& [v, fact] : facts) {
    auto it = ranges_.find(v);
    Interval known = it == ranges_.end() ? Interval::of_type(v->type) : it->second;
    scopes.push_back(std::make_unique<ScopedRange>(this, v, Interval::make_intersection(known, fact)));
  }
  Stmt out = mutate_stmt(s);
  // Restore innermost first: two facts on one variable (y >= 1 && y < 14) nest their saved ranges.
  while (!scopes.empty()) scopes.pop_back();
  return out;
}

Stmt Simplifier::mutate(const Store* op, const Stmt& self) { return IRMutator::mutate(op, self); }

Stmt Simplifier::mutate(const For* op, const Stmt& self) {
  Expr mn = mutate_expr(op->min), ext = mutate_expr(op->extent);
  Interval e = bounds(ext);
  if (e.max && *e.max <= 0) return make_no_op();
  if (is_const_int(ext, int64_t(1)) && op->for_kind != ForKind::ThreadBound) {
    ScopedSubst s(this, op->var.get(), mn);
    return mutate_stmt(op->body);
  }
  Stmt body;
  {
    ScopedSubst s(this, op->var.get(), op->var);
    ScopedRange r(this, op->var.get(), loop_range(mn, ext));
    body = mutate_stmt(op->body);
  }
  if (is_no_op(body)) return make_no_op();
  if (mn == op->min && ext == op->extent && body == op->body) return self;
  return op->with_range(mn, ext, body);
}

Stmt Simplifier::mutate(const Block* op, const Stmt& self) {
  bool changed = false;
  auto ivs = mutate_iter_vars(op->iter_vars, &changed);
  auto bindings = mutate_exprs(op->bindings, &changed);
  std::vector<std::unique_ptr<ScopedRange>> scopes;
  std::vector<std::unique_ptr<ScopedSubst>> unsubst;
  for (const IterVar& iv : ivs) {
    unsubst.push_back(std::make_unique<ScopedSubst>(this, iv.var.get(), iv.var));
    scopes.push_back(std::make_unique<ScopedRange>(this, iv.var.get(), loop_range(iv.min, iv.extent)));
  }
  Expr pred = op->predicate ? mutate_expr(op->predicate) : nullptr;
  if (pred) {
    if (auto p = prove(pred)) {
      if (!*p) return make_no_op();
      pred = nullptr;
    }
  }
  Stmt init = op->init ? mutate_stmt(op->init) : nullptr;
  Stmt body = mutate_stmt(op->body);
  if (!changed && pred == op->predicate && init == op->init && body == op->body) return self;
  return Block::make(op->stage, std::move(ivs), std::move(bindings), pred, init, body);
}

Stmt Simplifier::mutate(const Allocate* op, const Stmt& self) {
  Stmt body = mutate_stmt(op->body);
  if (is_no_op(body)) return make_no_op();
  return body == op->body ? self : Allocate::make(op->buffer, body);
}

Stmt Simplifier::mutate(const Seq* op, const Stmt& self) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const Stmt& s : op->stmts) {
    Stmt m = mutate_stmt(s);
    if (m != s) changed = true;
    if (is_no_op(m)) {
      changed = true;
      continue;
    }
    out.push_back(m);
  }
  return changed ? Seq::make(std::move(out)) : self;
}

Stmt Simplifier::mutate(const IfThenElse* op, const Stmt& self) {
  Expr c = mutate_expr(op->cond);
  if (auto p = prove(c)) {
    if (*p) return mutate_stmt(op->then_case);
    return op->else_case ? mutate_stmt(op->else_case) : make_no_op();
  }
  Stmt t = mutate_with_facts(op->then_case, c, true);
  Stmt e = op->else_case ? mutate_with_facts(op->else_case, c, false) : nullptr;
  if (e && is_no_op(e)) e = nullptr;
  if (is_no_op(t)) {
    if (!e) return make_no_op();
    return IfThenElse::make(simplify_not(c), e);
  }
  if (c == op->cond && t == op->then_case && e == op->else_case) return self;
  return IfThenElse::make(c, t, e);
}

Stmt Simplifier::mutate(const Evaluate* op, const Stmt& self) {
  Expr v = mutate_expr(op->value);
  if (v->as<IntImm>() || v->as<FloatImm>()) return make_no_op();
  return v == op->value ? self : Evaluate::make(v);
}

}  // namespace texc::simplify_internal
