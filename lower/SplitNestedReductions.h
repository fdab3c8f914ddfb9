// split_nested_reductions: gives every reduction its own stage.
//
// A stage whose body is not a single top-level Reduce but contains reductions
// (`A[i] = sum(X[i, k] for k in 0..K) / 9.0`) becomes a hidden reduction stage per Reduce, named
// `<stage>_red` (`_red1`, `_red2`, ... when there are several), computing the reduction over the
// stage's axes, and the original stage reads it (`A[i] = A_red[i] / 9.0`). Afterwards every stage
// body is either free of Reduce or exactly one Reduce at the top. Stages are kept in topological
// order. Schedule references to the hidden stage's reduction loops may use the original stage
// name (`A.k`); see schedule/LoopNames.h.
#pragma once
#include "ir/Op.h"

namespace texc {

OpDef split_nested_reductions(const OpDef& op);

}  // namespace texc
