// vectorize_loops: every Vectorized loop of constant extent becomes vector code, Halide-style.
//
// Assumes: runs after partition_loops (so the steady parts of split loops have no guards); loops
// inside a Vectorized loop were vectorized first (the pass works bottom-up).
//
// Guarantees: the result computes exactly what the input computes. A Vectorized loop over
// [min, min + L) with constant 2 <= L <= 64 is replaced by its body in which the loop variable is
// Ramp(min, 1, L) and every expression that depends on it is a vector of L lanes: operations
// broadcast their loop-invariant operands (Broadcast), Ramp +- scalar, Ramp +- Ramp and
// Ramp * constant fold to Ramps, Loads and Stores get vector indices (the Load's type gets the
// index lanes), a Let or LetStmt whose value becomes a vector binds a new vector variable.
// Loop-invariant expressions and statements stay scalar. A select whose condition differs across
// lanes evaluates both branches for every lane, so every Load in its branches (and in the second
// operand of a lane-varying && or ||) gets its indices clamped into the buffer's constant shape;
// the clamped lanes are never selected.
// A one-dimensional Allocate of constant size n inside the body (a producer computed at the loop)
// holds one iteration's values: it becomes n*L elements, element e of lane l at e*L + l, so each
// lane has its own slice.
// The loop falls back to a Serial loop (same variable, same body) when its body has something with
// no vector form: an if whose condition depends on the loop variable, another Allocate, an extern call,
// vector code already (a nested vectorized loop), a loop whose bounds depend on the variable, a
// Parallel or ThreadBound loop inside, a lane-varying select branch with a Load of a buffer of
// non-constant shape or an integer division by a non-constant. It also falls back unless the lanes
// are provably independent: every buffer stored in the body is stored with one index that is a
// Ramp of constant non-zero stride s (the others lane-invariant, using no variable bound inside
// the body) whose base depends on variables bound inside the body (inner loops) only linearly,
// with coefficients that are multiples of s*L, and every access to the buffer in the body uses
// exactly the same indices (each lane touches only its own elements); widened allocations are
// lane-private by construction. Serial and Unrolled loops
// inside a vectorized body stay loops over vector statements.
// Loops of extent 1 become Serial loops; loops of more than 64 lanes or non-constant extent are
// left as Serial loops.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt vectorize_loops(const Stmt& s);

/// Whether vectorize_loops turns the vectorized loop `loop` (with no vectorized loop inside) into
/// vector code, rather than leaving it serial with a remark.
bool vectorizes(const For* loop);

}  // namespace texc
