// The simplifier's rules for comparisons and min/max.
//
// Guarantees (each result computes the same values as its input):
//  - A comparison folds to true or false when the interval bounds of its operands (under the
//    given variable ranges and those of enclosing loops and lets) decide it, for index (i64)
//    operands also when the bounds of their difference do: `o*8 + i < 64` with o, i in [0, 7] ->
//    `true`, `x < x + 1` -> `true`. An undecided index comparison moves the left constant to the
//    right: `x + 1 < y + 3` -> `x < y + 2`. `b == true` -> `b`, `b == false` -> `!b` (bools).
//  - min and max fold to one operand when the bounds (or, for indices, the bounds of the
//    difference) order them; `min(min(x, c1), c2)` -> `min(x, min(c1, c2))`; otherwise the
//    operands are ordered with a constant on the right.
#include <algorithm>

#include "ir/ExprOrder.h"
#include "ir/SimplifyInternal.h"

namespace texc::simplify_internal {

Expr Simplifier::min_max(BinaryOp op, Expr a, Expr b) {
  bool is_min = op == BinaryOp::Min;
  if (a->as<IntImm>() && !b->as<IntImm>()) std::swap(a, b);
  if (same_expr(a, b)) return a;
  // a <= b ?
  std::optional<bool> a_le_b;
  Interval ia = bounds(a), ib = bounds(b);
  if (ia.max && ib.min && *ia.max <= *ib.min) a_le_b = true;
  else if (ib.max && ia.min && *ib.max <= *ia.min) a_le_b = false;
  else if (is_index_type(a->type)) {
    LinearForm d = linear_form(a);
    d.add(linear_form(b), -1);
    Interval id = bounds(d.to_expr());
    if (id.max && *id.max <= 0) a_le_b = true;
    else if (id.min && *id.min >= 0) a_le_b = false;
  }
  if (a_le_b) return (*a_le_b == is_min) ? a : b;
  // min(min(x, c1), c2) -> min(x, min(c1, c2))
  if (auto c2 = const_int(b)) {
    if (const Binary* inner = a->as<Binary>(); inner && inner->op == op && inner->b->as<IntImm>())
      return simplify_binary(op, inner->a, simplify_binary(op, inner->b, b));
  }
  if (!b->as<IntImm>() && compare_exprs(a, b) > 0) std::swap(a, b);
  return Binary::make(op, a, b);
}

Expr Simplifier::comparison(BinaryOp op, Expr a, Expr b) {
  Type t = a->type;
  if (t.is_bool() && (op == BinaryOp::EQ || op == BinaryOp::NE)) {
    if (a->as<IntImm>() && !b->as<IntImm>()) std::swap(a, b);
    if (auto c = const_int(b)) {
      bool keep = (*c != 0) == (op == BinaryOp::EQ);
      return keep ? a : simplify_not(a);
    }
    return Binary::make(op, a, b);
  }
  Expr cmp = Binary::make(op, a, b);
  if (auto p = prove(cmp)) return make_bool(*p);
  if (!is_index_type(t)) return cmp;
  LinearForm la = linear_form(a), lb = linear_form(b);
  LinearForm d = la;
  d.add(lb, -1);
  Expr diff = d.to_expr();
  Expr zero = IntImm::make(t, 0);
  if (auto p = prove(Binary::make(op, diff, zero))) return make_bool(*p);
  if (same_expr(a, b)) return make_bool(op == BinaryOp::EQ || op == BinaryOp::LE || op == BinaryOp::GE);
  // Move a's constant to the right: x + 1 < y + 3  ->  x < y + 2.
  if (la.constant != 0 && !la.is_const()) {
    int64_t k = la.constant;
    la.constant = 0;
    lb.constant = lb.wrap(int64_t(uint64_t(lb.constant) - uint64_t(k)));
    a = la.to_expr();
    b = lb.to_expr();
  }
  return Binary::make(op, a, b);
}

}  // namespace texc::simplify_internal
