// attach_hidden_reductions: a hidden reduction stage follows its consumer.
//
// `O[i, e] = sum(S[i, j] * V[j, e] for j in 0..J) / Z[i]` is lowered as a hidden stage `O_red`
// (the sum) and O reading it (ir/Op.h hidden_reduction_stage_name). When the schedule moves or
// splits O but says nothing of O_red (neither `O_red` nor a reduction loop `O.j`), O_red would be
// left computing its whole tensor at the top level, serially, before O: a split, parallel or
// compute_at of O would silently not apply to the work that matters. This pass, run after the
// schedule, computes such an O_red at O's outermost own loop (compute_at semantics: only the
// region one iteration needs, inside O's parallel loop if that is the one), or, when O has no loop
// of its own, at the innermost loop that O was computed at. It leaves the hidden stage where it is
// when the schedule named it, when O is not scheduled (the default loops), when that loop is
// vectorized, or when O's nest is at the top level with no loop at all. Skipped with --no-fuse.
#pragma once
#include "lower/schedule/ScheduleState.h"

namespace texc {

void attach_hidden_reductions(ScheduleState& st);

}  // namespace texc
