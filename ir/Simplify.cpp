// The simplifier's entry points and core: the dispatch of binary operators to the rule files, the
// scoped facts (variable ranges from loops and lets, substitutions of constant lets and extent-1
// loops) and the nodes that introduce or use them (variables, Let and LetStmt, Reduce, Ramp).
// See SimplifyInternal.h for the files.
//
// Guarantees: a let of a constant or a variable is substituted; any other let's body is simplified
// knowing the bounds of its value, and the let is dropped when its body no longer uses it (a
// LetStmt also when its body does nothing). A Reduce's source knows the ranges of its axes. A
// ramp of stride 0 becomes a broadcast.
#include "ir/Simplify.h"

#include <limits>
#include <type_traits>

#include "ir/Diagnostics.h"
#include "ir/ExprOrder.h"
#include "ir/SimplifyInternal.h"
#include "ir/Substitute.h"

namespace texc {

Stmt make_no_op() { return Seq::make({}); }

bool is_no_op(const Stmt& s) {
  if (!s) return true;
  if (const Seq* q = s->as<Seq>()) return q->stmts.empty();
  if (const Evaluate* e = s->as<Evaluate>()) return e->value->as<IntImm>() || e->value->as<FloatImm>();
  return false;
}

namespace simplify_internal {

Expr Simplifier::simplify_binary(BinaryOp op, Expr a, Expr b) {
  Type t = a->type;
  if (t.is_vector()) return vector_binary(op, a, b);
  if (auto folded = fold_constants(op, a, b)) return folded;
  if (t.is_float()) return Binary::make(op, a, b);
  if (op == BinaryOp::And || op == BinaryOp::Or) return logical(op, a, b);
  if (is_comparison(op)) return comparison(op, a, b);
  if (t.is_bool()) return Binary::make(op, a, b);
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul: return arithmetic(op, a, b);
    case BinaryOp::Div:
    case BinaryOp::Mod: return div_mod(op, a, b);
    case BinaryOp::Min:
    case BinaryOp::Max: return min_max(op, a, b);
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      if (is_const_int(b, int64_t(0))) return a;
      return Binary::make(op, a, b);
    default: return Binary::make(op, a, b);
  }
}

std::optional<bool> Simplifier::prove(const Expr& cond) {
  if (auto c = const_int(cond)) return *c != 0;
  Interval i = bounds(cond);
  if (i.is_point()) return *i.min != 0;
  return std::nullopt;
}

Interval Simplifier::loop_range(const Expr& min, const Expr& extent) {
  Interval m = bounds(min), e = bounds(extent);
  Interval r;
  r.min = m.min;
  if (m.max && e.max && *e.max >= 1) {
    __int128 hi = __int128(*m.max) + *e.max - 1;
    if (hi <= std::numeric_limits<int64_t>::max()) r.max = int64_t(hi);
  }
  return r;
}

Expr Simplifier::mutate(const Variable* op, const Expr& self) {
  auto it = subst_.find(op);
  return it == subst_.end() ? self : it->second;
}

Expr Simplifier::mutate(const Binary* op, const Expr& self) {
  Type t = op->type;
  if ((op->op == BinaryOp::Add || op->op == BinaryOp::Sub) && t.is_integer() && t.is_scalar()) return sum(op, self);
  Expr a = mutate_expr(op->a), b = mutate_expr(op->b);
  Expr r = simplify_binary(op->op, a, b);
  if (a == op->a && b == op->b && same_expr(r, self)) return self;
  return r;
}

Expr Simplifier::mutate(const Ramp* op, const Expr& self) {
  Expr base = mutate_expr(op->base), stride = mutate_expr(op->stride);
  if (is_const_int(stride, int64_t(0))) return Broadcast::make(base, op->lanes);
  if (base == op->base && stride == op->stride) return self;
  return Ramp::make(base, stride, op->lanes);
}

// Let and LetStmt: a value that is a constant or a variable is substituted into the body;
// otherwise the body is simplified knowing the bounds of the value, and the let is dropped when
// the body no longer uses its variable (a LetStmt also when its body does nothing).
template <typename LetNode, typename Body>
Body Simplifier::simplify_let(const LetNode* op, const Body& self) {
  auto mutate_body = [&](const Body& b) {
    if constexpr (std::is_same_v<Body, Expr>) return mutate_expr(b);
    else return mutate_stmt(b);
  };
  Expr value = mutate_expr(op->value);
  if (value->template as<IntImm>() || value->template as<FloatImm>() || value->template as<Variable>()) {
    ScopedSubst s(this, op->var.get(), value);
    return mutate_body(op->body);
  }
  Body body;
  {
    ScopedSubst s(this, op->var.get(), op->var);
    ScopedRange r(this, op->var.get(), bounds(value));
    body = mutate_body(op->body);
  }
  if constexpr (std::is_same_v<Body, Stmt>) {
    if (is_no_op(body)) return make_no_op();
  }
  if (!uses_var(body, op->var.get())) return body;
  if (value == op->value && body == op->body) return self;
  return LetNode::make(op->var, value, body);
}

Expr Simplifier::mutate(const Let* op, const Expr& self) { return simplify_let(op, self); }

Stmt Simplifier::mutate(const LetStmt* op, const Stmt& self) { return simplify_let(op, self); }

Expr Simplifier::mutate(const Reduce* op, const Expr& self) {
  bool changed = false;
  auto axes = mutate_iter_vars(op->axes, &changed);
  std::vector<std::unique_ptr<ScopedRange>> scopes;
  for (const IterVar& a : axes) scopes.push_back(std::make_unique<ScopedRange>(this, a.var.get(), loop_range(a.min, a.extent)));
  Expr src = mutate_expr(op->source);
  scopes.clear();
  if (!changed && src == op->source) return self;
  return Reduce::make(op->reduce_kind, src, std::move(axes));
}

}  // namespace simplify_internal

using simplify_internal::Simplifier;

Expr simplify(const Expr& e, const VarIntervals& vars) {
  if (!e) return e;
  return Simplifier(vars).mutate_expr(e);
}

Stmt simplify(const Stmt& s) { return simplify(s, VarIntervals{}); }

Stmt simplify(const Stmt& s, const VarIntervals& vars) {
  if (!s) return s;
  Stmt r = Simplifier(vars).mutate_stmt(s);
  return r ? r : make_no_op();
}

}  // namespace texc
