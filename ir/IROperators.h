// Arithmetic on Exprs for code that builds IR: a + b, a * 4, min(a, b), a < b, ...
// Both operands must have the same type; an integer or double literal takes the other's type.
#pragma once
#include "ir/IR.h"

namespace texc {

/// A constant of type t (integer, bool or float) with value v.
Expr make_const(Type t, double v);

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
/// Floor division for integers.
Expr operator/(Expr a, Expr b);
/// Floor modulo for integers.
Expr operator%(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
// Logical operators are named functions, not overloads: an overloaded `!` or `&&` on Expr would
// silently change the meaning of `if (!e)` and `a && b` truth tests on pointers.
Expr logical_and(Expr a, Expr b);
Expr logical_or(Expr a, Expr b);
Expr logical_not(Expr a);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr eq(Expr a, Expr b);
Expr ne(Expr a, Expr b);

/// The terms of a conjunction `a && b && ...` (e itself when it is not one; none for null).
std::vector<Expr> conjuncts(const Expr& e);

#define TEXC_SCALAR_OPERATOR(op)                                                             \
  inline Expr operator op(Expr a, int64_t b) { auto t = a->type.element_of(); return a op make_const(t, double(b)); } \
  inline Expr operator op(int64_t a, Expr b) { auto t = b->type.element_of(); return make_const(t, double(a)) op b; }
TEXC_SCALAR_OPERATOR(+)
TEXC_SCALAR_OPERATOR(-)
TEXC_SCALAR_OPERATOR(*)
TEXC_SCALAR_OPERATOR(/)
TEXC_SCALAR_OPERATOR(%)
TEXC_SCALAR_OPERATOR(<)
TEXC_SCALAR_OPERATOR(<=)
TEXC_SCALAR_OPERATOR(>)
TEXC_SCALAR_OPERATOR(>=)
#undef TEXC_SCALAR_OPERATOR

}  // namespace texc
