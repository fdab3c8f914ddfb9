// build_default_loops: the unscheduled loop AST of an op.
//
// One loop nest per stage, in the stages' topological order, at the root of the function: the
// spatial loops (named "<stage>.<axis>", e.g. "C.i"), then the reduction loops ("C.k"), around a
// Block that binds the stage's iter vars to those loop variables. A reduction stage's Block has
// the reduction identity as `init` and `T[i..] = combine(T[i..], source)` as body; any other stage
// stores its body. Intermediate buffers are not allocated here (plan_storage does it after
// scheduling). Assumes split_nested_reductions has run: a body is Reduce-free or one top Reduce.
#pragma once
#include "ir/Function.h"
#include "ir/Op.h"

namespace texc {

/// The loop nest of one stage, with fresh loop variables named "<stage>.<axis>".
Stmt build_stage_nest(const Stage& stage);
/// The function: args = op inputs then outputs; body = every stage's nest in order.
LoweredFunc build_default_loops(const OpDef& op);

/// The iteration domain of a stage: spatial axes then reduction axes.
std::vector<IterVar> stage_iter_vars(const Stage& stage);
/// True if the stage's body is a reduction.
bool is_reduction_stage(const Stage& stage);

}  // namespace texc
