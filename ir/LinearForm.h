// Linear forms: an integer expression as a sum of coefficient*atom terms plus a constant, the one
// representation of linear integer arithmetic in texc.
//
// linear_form(e) looks through +, - and products by constants; everything else (a variable, a
// division, a min, a product of two non-constants, ...) is an atom. Atoms are compared deeply, with
// variables by identity (ir/ExprOrder.h), so like terms combine: `x*2 + y - x` -> 1*x + 1*y.
// Coefficients and the constant are kept wrapped to the expression type's width (signed
// interpretation), which is exact in the IR's wrap-around arithmetic; `exact` says whether they
// also equal the mathematical (unbounded) values, i.e. nothing wrapped on the way.
//
// Used by the simplifier (ir/Simplify*.cpp: canonical sums, division and modulo by constants,
// comparisons of differences), and through linear_coefficient by partition_loops (solving guards
// for a loop variable), vectorize_loops (proving that the lanes of a vectorized loop store to
// distinct elements) and automatic fusion (whether a binding steps exactly over its loops).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/IR.h"

namespace texc {

struct LinearTerm {
  Expr atom;
  int64_t coeff;
};

struct LinearForm {
  Type type;
  std::vector<LinearTerm> terms;  // no two with the same atom, none with coefficient 0
  int64_t constant = 0;
  /// False once a coefficient or the constant wrapped around at the type's width.
  bool exact = true;

  bool is_const() const { return terms.empty(); }
  /// v as a signed number of the type's width (two's complement).
  int64_t wrap(int64_t v) const;
  /// Adds coeff*atom, combining it with a term of the same atom.
  void add_term(const Expr& atom, int64_t coeff);
  /// Adds scale*o.
  void add(const LinearForm& o, int64_t scale);
  /// Multiplies every coefficient and the constant by c.
  void scale(int64_t c);
  /// The canonical expression: terms ordered by decreasing |coefficient| (positive terms first),
  /// then by the deep order of ir/ExprOrder.h, the constant last: `io*8 + ii + 2`, `x - y*2`,
  /// `3 - x` (a leading negative term takes the constant in front).
  Expr to_expr() const;
};

/// The linear form of integer expression e.
LinearForm linear_form(const Expr& e);

/// The coefficient k of v in e when e = k*v + (terms without v), built from +, - and products by
/// constants (0 when e does not mention v); nullopt when v appears otherwise (inside /, %, min,
/// a product of two non-constants, ...), a coefficient wraps around, or k exceeds 2^40 in magnitude.
std::optional<int64_t> linear_coefficient(const Expr& e, const Variable* v);

}  // namespace texc
