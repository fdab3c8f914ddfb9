// hoist_reduction_guards: the guard that all of a loop's accumulations share moves out of them, to
// an if around the loop's body, where partition_loops can split the loop on it.
//
// A reduction whose terms are zero outside a region is written `sum(select(c, e, 0.0) for ...)`
// (stdlib nn.conv2d_blocked: the taps of a padding row). Lowered, each update is
// `B[i] = B[i] + select(c, e, 0)`; where c is false the iteration adds zero. This pass finds loops
// whose every update is of that form and tests the shared part of c once per iteration, skipping
// the iteration instead of adding zeros; partition_loops then gives the loop a guard-free steady
// range and guarded edges where the guard is linear in the loop variables (the interior output
// rows of a convolution run its kernel unguarded, the border rows skip their padding taps), as a
// convolution library skips padding instead of multiplying it.
//
// Assumes: runs after simplify on the flattened loop AST (Blocks lowered), before partition_loops.
//
// Guarantees: the result computes what the input computes (an iteration skipped only added zeros:
// `x + 0` is x, up to the sign of a zero sum). A Serial loop `for v in ...` qualifies when every
// store under it is an accumulation `B[i] = B[i] + select(c, e, z)` (either operand order; z a
// constant zero), every other statement under it is a loop, a sequence, a let or an if without
// an else (skipping an iteration skips its test too), and the conditions c of all its stores
// share conjuncts that are comparisons linear in v whose other terms use no variable bound inside
// the loop and no load (e.g. `oy + ry >= 1` for the loop over ry). Its body becomes
// `if (those conjuncts) body`, and they leave the selects (a select left without a condition
// becomes its value, so the update is a plain multiply-add again). Inner loops are rewritten
// first, so a conjunct goes to the innermost loop whose variable it is linear in.
//
// Leaves alone: Parallel, Vectorized, Unrolled, ThreadBound and Tensorized loops; loops with any
// other effect (a store that is not such an accumulation, an if with an else, an allocation, an
// extern call); conjuncts that only some stores have.
//
// (A first version narrowed the loop's bounds instead, `for ry in max(1 - oy, 0)..`: LLVM then
// spilled accumulators of conv C1's 16-register tile inside its inner loop, 2x slower.)
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt hoist_reduction_guards(const Stmt& s);

}  // namespace texc
