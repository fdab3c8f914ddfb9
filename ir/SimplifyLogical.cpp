// The simplifier's rules for boolean logic: &&, ||, ! and select.
//
// Guarantees (each result computes the same values as its input):
//  - `x && true` -> `x`, `x && false` -> `false` (and dually for ||), `x && x` -> `x`; a
//    conjunction or disjunction the interval bounds decide folds to a constant.
//  - `!!x` -> `x`, `!c` folds for constants, and `!(a < b)` -> `a >= b` (every comparison of
//    integers; of floats only == and !=, which stay exact with NaN).
//  - A select whose scalar condition the bounds decide becomes the chosen value (the other is
//    not simplified); a select of two equal values becomes the value.
#include "ir/Diagnostics.h"
#include "ir/ExprOrder.h"
#include "ir/SimplifyInternal.h"

namespace texc::simplify_internal {

BinaryOp negate_comparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::LT: return BinaryOp::GE;
    case BinaryOp::LE: return BinaryOp::GT;
    case BinaryOp::GT: return BinaryOp::LE;
    case BinaryOp::GE: return BinaryOp::LT;
    case BinaryOp::EQ: return BinaryOp::NE;
    case BinaryOp::NE: return BinaryOp::EQ;
    default: TEXC_UNREACHABLE();
  }
}

BinaryOp mirror_comparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::LT: return BinaryOp::GT;
    case BinaryOp::LE: return BinaryOp::GE;
    case BinaryOp::GT: return BinaryOp::LT;
    case BinaryOp::GE: return BinaryOp::LE;
    default: return op;
  }
}

Expr Simplifier::logical(BinaryOp op, Expr a, Expr b) {
  bool is_and = op == BinaryOp::And;
  if (a->as<IntImm>() && !b->as<IntImm>()) std::swap(a, b);
  if (auto c = const_int(b)) {
    bool v = *c != 0;
    if (v == is_and) return a;  // x && true, x || false
    return make_bool(v);        // x && false, x || true
  }
  if (same_expr(a, b)) return a;
  if (auto p = prove(Binary::make(op, a, b))) return make_bool(*p);
  return Binary::make(op, a, b);
}

Expr Simplifier::simplify_not(const Expr& a) {
  if (auto c = const_int(a)) return make_bool(*c == 0);
  if (const Not* n = a->as<Not>()) return n->a;
  if (const Binary* b = a->as<Binary>(); b && is_comparison(b->op)) {
    bool exact = !b->a->type.is_float() || b->op == BinaryOp::EQ || b->op == BinaryOp::NE;
    if (exact) return simplify_binary(negate_comparison(b->op), b->a, b->b);
  }
  return Not::make(a);
}

Expr Simplifier::mutate(const Not* op, const Expr& self) {
  Expr a = mutate_expr(op->a);
  if (a->type.is_vector()) return a == op->a ? self : Not::make(a);
  Expr r = simplify_not(a);
  return (a == op->a && same_expr(r, self)) ? self : r;
}

Expr Simplifier::mutate(const Select* op, const Expr& self) {
  Expr c = mutate_expr(op->cond);
  if (c->type.is_scalar()) {
    if (auto p = prove(c)) return mutate_expr(*p ? op->true_value : op->false_value);
  }
  Expr t = mutate_expr(op->true_value), f = mutate_expr(op->false_value);
  if (same_expr(t, f)) return t;
  if (c == op->cond && t == op->true_value && f == op->false_value) return self;
  return Select::make(c, t, f);
}

}  // namespace texc::simplify_internal
