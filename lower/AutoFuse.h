// Automatic fusion by stage kind (language.md "compute blocks"), for the stages a schedule does
// not mention (ScheduleState::user_named). Both passes are skipped with --no-fuse.
//
// inline_injective_stages runs before the schedule is applied: every elementwise (injective)
// stage that is not an op output is inlined into its consumers, as a graph compiler would (pads,
// bias adds, casts between two reductions).
//
// fuse_into_reductions runs after the schedule: an elementwise stage E (typically an output such
// as `R = max(conv, 0)`) whose Block reads exactly one reduction stage R, at E's own indices (R and E
// have the same shape), is computed inside R's loop nest: at R's output loop O, the innermost loop
// of R that encloses all of R's reduction loops and drives one of R's spatial axes. When the
// schedule applied cache_write to the reduction, R is the copy-out stage (T[i..] = cache[i..]) and O
// is its innermost serial or parallel loop. E's loops are
// regenerated over the region R produces during one iteration of O (bound inference as for
// compute_at, with domain guards) and inserted in O's body right after the statement that holds
// R's reduction loops, so R's full tensor is never written (plan_storage then allocates R per
// iteration of O). This stays correct when the schedule split or reordered R's loops: with a
// reduction loop outside some spatial loops, O is the loop around the outermost reduction loop
// and E iterates over the spatial region inside it. E runs under R's guards on the loops outside
// O. When R has no such loop (its outermost loop is a reduction loop) E stays where it is, right
// after R at the top level. Fusion is not done when one iteration of O does not produce a whole box
// of R (a fused loop split at a factor that is not a multiple of the row), when R is guarded inside
// O by something other than the bounds of its own axes (a split of an intermediate fused loop), or
// when it would break the data flow (E also reads a stage computed later): E would compute points
// that R did not produce in that iteration.
#pragma once
#include "lower/schedule/ScheduleState.h"

namespace texc {

void inline_injective_stages(ScheduleState& st);
void fuse_into_reductions(ScheduleState& st);

}  // namespace texc
