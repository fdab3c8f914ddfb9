// narrow_guarded_reductions: a loop that only adds guarded terms to its accumulators runs over the
// range where the guard can hold.
//
// A reduction whose terms are zero outside a region is written `sum(select(c, e, 0.0) for ...)`
// (stdlib nn.conv2d_blocked: the taps of a padding row). Lowered, each update is
// `B[i] = B[i] + select(c, e, 0)`; where c is false the iteration adds zero. This pass finds such
// loops and shrinks them to the iterations that can add something, as a convolution library skips
// the padding rows instead of multiplying them by zeros.
//
// Assumes: runs after simplify on the flattened loop AST (Blocks lowered), before partition_loops.
//
// Guarantees: the result computes what the input computes (an iteration left out only added zeros:
// `x + 0` is x, up to the sign of a zero sum). A Serial loop `for v in [m, m + n)` qualifies when
// every store under it is an accumulation `B[i] = B[i] + select(c, e, z)` (either operand order; z
// a constant zero), every other statement under it is a loop, a sequence or a let, and the
// conditions c of all its stores share conjuncts that are comparisons linear in v whose other
// terms use no variable bound inside the loop and no load (e.g. `oy + ry >= 1` for the loop over
// ry). The loop then runs over [max(m, lo), min(m + n, hi)) (extent clamped at 0), the interval
// where every shared conjunct holds, and those conjuncts leave the selects (a select left without
// a condition becomes its value, so the update is a plain multiply-add again). Loops whose bounds
// become symbolic are Serial and stay so (partition_loops leaves them alone).
//
// Leaves alone: Parallel, Vectorized, Unrolled, ThreadBound and Tensorized loops; loops with any
// other effect (a store that is not such an accumulation, an if, an allocation, an extern call);
// conjuncts that only some stores have.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt narrow_guarded_reductions(const Stmt& s);

}  // namespace texc
