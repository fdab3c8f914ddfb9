// split_nested_reductions: gives every reduction its own stage.
//
// A stage whose body is not a single top-level Reduce but contains reductions
// (`A[i] = sum(X[i, k] for k in 0..K) / 9.0`) becomes a hidden reduction stage per Reduce, named
// `<stage>_red` (`_red1`, `_red2`, ... when there are several), computing the reduction over the
// stage's axes, and the original stage reads it (`A[i] = A_red[i] / 9.0`). A reduction inside a
// reduction's body (`Y[i] = sum(max(X[i, k, l] for l in 0..L) for k in 0..K)`) becomes a hidden
// stage too, over the stage's axes and the axes of every enclosing reduction (`Y_red[i, k] =
// max(X[i, k, l] for l in 0..L)`, `Y[i] = sum(Y_red[i, k] for k in 0..K)`); an enclosing axis
// `k in a..b` is rebased to start at 0 in the hidden stage (read as `Y_red[i, k - a]`).
// Afterwards every stage body is either free of Reduce or exactly one Reduce at the top whose
// source is free of Reduce. Stages are kept in topological order (hidden stages right before
// their reader). Schedule references to the hidden stage's reduction loops may use the original
// stage name (`A.k`, `Y.l`); see ScheduleState::loop.
#pragma once
#include "ir/Op.h"

namespace texc {

OpDef split_nested_reductions(const OpDef& op);

}  // namespace texc
