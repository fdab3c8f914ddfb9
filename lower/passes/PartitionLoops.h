// partition_loops: splits a loop into a steady part, where the guards of non-dividing splits are
// provably true and dropped, and a prologue and an epilogue that keep them.
//
// Assumes: runs after simplify on the loop AST (Blocks lowered; buffers may be flat or not). Guards
// are IfThenElse conditions, conjunctions of integer (i64) inequalities such as `io*8 + ii < 100`.
//
// Guarantees: the result computes exactly what the input computes. A Serial or Parallel loop with
// a constant min and extent is partitioned on the conjuncts of the ifs under it that are linear in
// its variable (the loops between the loop and the if are relaxed over their ranges; enclosing
// loops over theirs): the steady range is the intersection of the ranges where each such conjunct
// holds for every value of the relaxed variables, solved with floor division. A Serial loop becomes
// up to three loops over [min, s0), [s0, s1), [s1, min + extent); empty parts are
// dropped, a part of extent 1 becomes its body with the variable replaced by the constant, and no
// extent is ever negative. A Parallel loop keeps its range (its tail iterations stay among the
// parallel ones instead of running after them): its body becomes `if (v < s0) {head} else if
// (v < s1) {steady} else {tail}`, each version simplified for its range. Copies of the body get
// fresh variables and buffers (fresh_copy).
// Partitions nest at most three deep on any path. Everywhere (not only in partitions), a conjunct
// of an if condition that is provably true under the ranges of the enclosing loops and lets is
// dropped, and an if whose condition is provably false becomes its else branch.
//
// A Vectorized or Unrolled loop with constant bounds whose whole body is `if (cond) S`, cond true
// exactly on a constant sub-range [a, b] of the loop (solved as above, and provably false on the
// rest), becomes a loop of the same kind over [a, b] of S: a split's tail keeps a narrower vector.
//
// Leaves alone: loops with symbolic bounds (they are never partitioned, so no partition depends
// on a value that is unknown here); Vectorized, Unrolled, ThreadBound and Tensorized loops are
// never split into parts (their extents stay constants); conditions that are not linear in the
// loop variable (e.g. through / and % of fused loops); select conditions.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt partition_loops(const Stmt& s);

}  // namespace texc
