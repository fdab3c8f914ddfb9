// remove_no_ops: drops statements that have no effect.
//
// Assumes: nothing beyond a valid loop AST (usually runs after unroll_loops).
//
// Guarantees: the result computes exactly what the input computes, and contains no
//  - Allocate of a buffer that is never loaded anywhere in the statement (the Allocate and every
//    store to the buffer go; a stored value with an extern call stays as an Evaluate of it);
//  - store of a value to itself (`A[i] = A[i]`, same buffer and deeply equal indices);
//  - loop of constant extent <= 0, loop, LetStmt or Allocate whose body does nothing;
//  - if whose branches both do nothing (an empty then-branch with a non-empty else-branch becomes
//    `if (!cond) else-branch`);
//  - Evaluate of an expression without an extern call; nested or empty Seqs (an empty Seq is the
//    canonical no-op, returned when nothing is left).
// Leaves alone: everything with an effect; Blocks; expressions (no expression is rewritten).
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt remove_no_ops(const Stmt& s);

}  // namespace texc
