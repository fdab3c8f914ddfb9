// A deep, total order on expressions, for canonical forms (the simplifier sorts the operands of
// commutative operations with it) and for deep equality with variables and buffers compared by
// identity. Unlike structural equality (ir/StructuralEqual.h) it is not modulo renaming: two
// distinct variables named "i" are different, ordered by name first so the order is stable.
#pragma once
#include "ir/IR.h"

namespace texc {

/// <0, 0 or >0. Constants order before variables, variables before compound expressions.
int compare_exprs(const Expr& a, const Expr& b);
/// Deep equality (variables and buffers by identity). Null equals null.
inline bool same_expr(const Expr& a, const Expr& b) { return a == b || compare_exprs(a, b) == 0; }

}  // namespace texc
