#include "ir/IRMutator.h"

namespace texc {

Expr IRMutator::mutate_expr(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
#define TEXC_EXPR_NODE(name) \
  case ExprKind::name: return mutate(static_cast<const name*>(e.get()), e);
#include "ir/NodeKinds.def"
  }
  return e;
}

Stmt IRMutator::mutate_stmt(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
#define TEXC_STMT_NODE(name) \
  case StmtKind::name: return mutate(static_cast<const name*>(s.get()), s);
#include "ir/NodeKinds.def"
  }
  return s;
}

std::vector<Expr> IRMutator::mutate_exprs(const std::vector<Expr>& v, bool* changed) {
  std::vector<Expr> out;
  out.reserve(v.size());
  for (const Expr& e : v) {
    out.push_back(mutate_expr(e));
    if (out.back() != e) *changed = true;
  }
  return out;
}

std::vector<IterVar> IRMutator::mutate_iter_vars(const std::vector<IterVar>& v, bool* changed) {
  std::vector<IterVar> out = v;
  for (IterVar& iv : out) {
    Expr mn = mutate_expr(iv.min), ext = mutate_expr(iv.extent);
    if (mn != iv.min || ext != iv.extent) *changed = true;
    iv.min = mn;
    iv.extent = ext;
  }
  return out;
}

Expr IRMutator::mutate(const IntImm*, const Expr& self) { return self; }
Expr IRMutator::mutate(const FloatImm*, const Expr& self) { return self; }
Expr IRMutator::mutate(const Variable*, const Expr& self) { return self; }

Expr IRMutator::mutate(const Binary* op, const Expr& self) {
  Expr a = mutate_expr(op->a), b = mutate_expr(op->b);
  if (a == op->a && b == op->b) return self;
  return Binary::make(op->op, a, b);
}
Expr IRMutator::mutate(const Not* op, const Expr& self) {
  Expr a = mutate_expr(op->a);
  return a == op->a ? self : Not::make(a);
}
Expr IRMutator::mutate(const Select* op, const Expr& self) {
  Expr c = mutate_expr(op->cond), t = mutate_expr(op->true_value), f = mutate_expr(op->false_value);
  if (c == op->cond && t == op->true_value && f == op->false_value) return self;
  return Select::make(c, t, f);
}
Expr IRMutator::mutate(const Cast* op, const Expr& self) {
  Expr v = mutate_expr(op->value);
  return v == op->value ? self : Cast::make(op->type, v);
}
Expr IRMutator::mutate(const Call* op, const Expr& self) {
  bool changed = false;
  auto args = mutate_exprs(op->args, &changed);
  return changed ? Call::make(op->type, op->name, std::move(args), op->call_kind) : self;
}
Expr IRMutator::mutate(const Load* op, const Expr& self) {
  bool changed = false;
  auto idx = mutate_exprs(op->indices, &changed);
  return changed ? Load::make(op->buffer, std::move(idx)) : self;
}
Expr IRMutator::mutate(const Ramp* op, const Expr& self) {
  Expr b = mutate_expr(op->base), s = mutate_expr(op->stride);
  if (b == op->base && s == op->stride) return self;
  return Ramp::make(b, s, op->lanes);
}
Expr IRMutator::mutate(const Broadcast* op, const Expr& self) {
  Expr v = mutate_expr(op->value);
  return v == op->value ? self : Broadcast::make(v, op->lanes);
}
Expr IRMutator::mutate(const Let* op, const Expr& self) {
  Expr v = mutate_expr(op->value), b = mutate_expr(op->body);
  if (v == op->value && b == op->body) return self;
  return Let::make(op->var, v, b);
}
Expr IRMutator::mutate(const Reduce* op, const Expr& self) {
  bool changed = false;
  auto axes = mutate_iter_vars(op->axes, &changed);
  Expr src = mutate_expr(op->source);
  if (!changed && src == op->source) return self;
  return Reduce::make(op->reduce_kind, src, std::move(axes));
}

Stmt IRMutator::mutate(const Store* op, const Stmt& self) {
  bool changed = false;
  auto idx = mutate_exprs(op->indices, &changed);
  Expr v = mutate_expr(op->value);
  if (!changed && v == op->value) return self;
  return op->with(op->buffer, std::move(idx), v);
}
Stmt IRMutator::mutate(const For* op, const Stmt& self) {
  Expr mn = mutate_expr(op->min), ext = mutate_expr(op->extent);
  Stmt body = mutate_stmt(op->body);
  if (mn == op->min && ext == op->extent && body == op->body) return self;
  return op->with_range(mn, ext, body);
}
Stmt IRMutator::mutate(const Block* op, const Stmt& self) {
  bool changed = false;
  auto ivs = mutate_iter_vars(op->iter_vars, &changed);
  auto bindings = mutate_exprs(op->bindings, &changed);
  Expr pred = mutate_expr(op->predicate);
  Stmt init = mutate_stmt(op->init), body = mutate_stmt(op->body);
  if (!changed && pred == op->predicate && init == op->init && body == op->body) return self;
  return Block::make(op->stage, std::move(ivs), std::move(bindings), pred, init, body);
}
Stmt IRMutator::mutate(const Allocate* op, const Stmt& self) {
  Stmt body = mutate_stmt(op->body);
  return body == op->body ? self : Allocate::make(op->buffer, body);
}
Stmt IRMutator::mutate(const Seq* op, const Stmt& self) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const Stmt& s : op->stmts) {
    out.push_back(mutate_stmt(s));
    if (out.back() != s) changed = true;
  }
  return changed ? Seq::make(std::move(out)) : self;
}
Stmt IRMutator::mutate(const IfThenElse* op, const Stmt& self) {
  Expr c = mutate_expr(op->cond);
  Stmt t = mutate_stmt(op->then_case), e = mutate_stmt(op->else_case);
  if (c == op->cond && t == op->then_case && e == op->else_case) return self;
  return IfThenElse::make(c, t, e);
}
Stmt IRMutator::mutate(const LetStmt* op, const Stmt& self) {
  Expr v = mutate_expr(op->value);
  Stmt b = mutate_stmt(op->body);
  if (v == op->value && b == op->body) return self;
  return LetStmt::make(op->var, v, b);
}
Stmt IRMutator::mutate(const Evaluate* op, const Stmt& self) {
  Expr v = mutate_expr(op->value);
  return v == op->value ? self : Evaluate::make(v);
}
Stmt IRMutator::mutate(const AttrStmt* op, const Stmt& self) {
  Expr v = mutate_expr(op->value);
  Stmt b = mutate_stmt(op->body);
  if (v == op->value && b == op->body) return self;
  return AttrStmt::make(op->key, op->name, v, b);
}

}  // namespace texc
