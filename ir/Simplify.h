// The simplifier: constant folding, algebraic identities and bound-based folding, for expressions
// and statements.
//
// Guarantees (the result always computes the same values as the input):
//  - Constants fold for every integer width with the IR's semantics: wrap-around at the declared
//    width, floor division and floor modulo (unsigned types: unsigned division). Division by a
//    constant zero is left alone. Floating-point expressions only fold when every operand is a
//    constant (f32 results are rounded to f32; f16 and bf16 are not folded); floats are never reassociated.
//  - Integer +, - and * by constants are put in the canonical linear form of ir/LinearForm.h: like
//    terms are combined, terms are ordered by decreasing |coefficient| (positive terms first), then
//    by the deep order of ir/ExprOrder.h, and the constant comes last: `ii + io*8 + 3 - 1` ->
//    `io*8 + ii + 2`, `x - x` -> `0`, `(x*2)*4` -> `x*8`, `(a + b)*4` -> `a*4 + b*4`. Other
//    commutative operands (min, max, non-constant *, &&, ||) are ordered with constants on the right.
//  - Index (i64) division and modulo by a positive constant c split off the multiples of c:
//    `(x*c + y)/c` -> `x + y/c`, `(x*c + y)%c` -> `y%c` (exact for floor semantics); `x/1` -> `x`,
//    `x%1` -> `0`, `(x/c1)/c2` -> `x/(c1*c2)`; with bounds, `y/c` -> `0` and `y%c` -> `y` when
//    y is within [0, c).
//  - min/max, comparisons, select and && || ! fold when the interval bounds of the operands (under
//    the given variable ranges and the ranges of enclosing loops and lets) decide them:
//    `o*8 + i < 64` with o, i in [0, 7] -> `true`. `!!x` -> `x`, `!(a < b)` -> `a >= b` (integers).
//
// Statements: tracks loop variable ranges (For(v, min, extent) gives v in [min, min+extent-1]),
// let values and the facts of simple if conditions (`v < e` in the then-branch); removes ifs with
// provable conditions, loops of extent <= 0 and statements with no effect; replaces a loop of
// extent 1 by its body with the variable substituted by the loop's min (except ThreadBound loops);
// flattens and drops empty Seqs. An empty Seq is the canonical no-op.
//
// The rules are in ir/Simplify*.cpp, one file per kind of expression or statement, each stating
// its own guarantees (ir/SimplifyInternal.h lists the files).
#pragma once
#include "ir/Bounds.h"
#include "ir/IR.h"

namespace texc {

/// Simplifies e, assuming each variable in vars lies in its interval.
Expr simplify(const Expr& e, const VarIntervals& vars = {});
/// Simplifies a statement.
Stmt simplify(const Stmt& s);
/// Simplifies a statement, assuming each variable in vars lies in its interval.
Stmt simplify(const Stmt& s, const VarIntervals& vars);

/// True if s does nothing: an empty Seq or the Evaluate of a constant.
bool is_no_op(const Stmt& s);
/// The canonical no-op statement (an empty Seq).
Stmt make_no_op();

}  // namespace texc
