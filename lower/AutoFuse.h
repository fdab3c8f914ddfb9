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
// is its innermost serial or parallel loop; likewise when R copies a reduction in another layout
// (T[n, f, y, x] = B[n, f / 16, y, x, f % 16]: nn.conv2d_blocked writes its blocked tiles to NCHW). E's loops are
// regenerated over the region R produces during one iteration of O (bound inference as for
// compute_at, with domain guards) and inserted in O's body right after the statement that holds
// R's reduction loops, so R's full tensor is never written (plan_storage then allocates R per
// iteration of O). E's innermost loop is vectorized when a vectorized or an unrolled loop inside O
// produced R's innermost axis (a register tile written back point by point, as conv2d_blocked's
// is to NCHW): left serial, LLVM vectorized E across its outer axis, a scatter per column. This stays correct when the schedule split or reordered R's loops: with a
// reduction loop outside some spatial loops, O is the loop around the outermost reduction loop
// and E iterates over the spatial region inside it. E runs under R's guards on the loops outside
// O. On a GPU target E's loops are instead a copy of R's spatial loops inside O (thread, vthread
// and unrolled loops, with their tags), bound to R's spatial bindings under R's guards on them:
// each thread applies E to the points it produced (no bounding box needed: a conv whose output
// rows and columns are fused and split by the block), and when E is R's only reader R becomes
// `local`, a per-thread accumulator, as cache_write(R, local) would make it.
// When R has no such loop (its outermost loop is a reduction loop) E stays where it is, right
// after R at the top level. When one iteration of O does not produce a whole box of R (a fused loop
// split at a factor that is not a multiple of the row: conv2d_1x1's flattened output plane), or R
// is guarded inside O by something other than the bounds of its own axes (a split of an
// intermediate fused loop), E would compute points that R did not produce in that iteration over
// the box: on the CPU targets too E's loops are then a copy of R's spatial loops inside O (kinds
// kept: a vectorized loop stays vectorized), bound to R's spatial bindings under R's guards on
// them, as on a GPU (below); when no loop inside O drives both kinds of axes. (Before, E stayed a
// scalar, serial nest of its own after R: MobileNetV2's 34 1x1 layers wrote their whole output
// and read it back for the bias and ReLU6, 2.7x slower on a 192 x 28 x 28 layer.) Fusion is not
// done when it would break the data flow (E also reads a stage computed later).
//
// Imported injective ops fuse as local stages do. The schedule an op call carries names the call's
// stages, which would keep them out of both passes; for an imported injective op (every stage of
// the call elementwise: relu, broadcast_add, a cast), that carried schedule gives way when the
// automatic fusion takes the stage, on the CPU targets (x86, arm, interp):
//  - is_injective_call says whether the call's stages are all elementwise (no reduction, hidden
//    or not);
//  - inline_injective_stages, which runs before the decision, inlines such a stage like any
//    unnamed one when it is not an op output (the carried schedule is then dropped);
//  - takes_automatic_fusion says whether a stage was inlined, or is an elementwise root nest that
//    fuse_into_reductions would try to compute in a reduction's loops (it reads one reduction
//    stage at its own indices). Lower.cpp drops the call's carried schedule when one of its
//    stages takes the fusion, and keeps it otherwise (a call that stands alone, `Y = relu(X)`);
//    when fuse_into_reductions then leaves the stage a nest of its own (the reduction's loops do
//    not allow it), the carried schedule is applied after all.
// A stage that its call's carried block says compute_root of is not inlined into a reduction that
// reads it (ScheduleState::kept_materialised), where it would be recomputed at every step of the
// reduction: nn.oihw_to_oihwio's weights in blocks are re-laid out once per call, not gathered at
// every multiply-add of the convolution that reads them. Read by elementwise stages only (nn.batch_norm's scale
// and shift), such a stage is inlined as before.
// The caller's own schedule still wins: naming one of the call's stages drops the carried block
// in the front end and keeps the stage out of automatic fusion.
#pragma once
#include <string>
#include <vector>

#include "lower/schedule/ScheduleState.h"

namespace texc {

void inline_injective_stages(ScheduleState& st);
void fuse_into_reductions(ScheduleState& st);

bool is_injective_call(const ScheduleState& st, const std::vector<std::string>& call_stages);
bool takes_automatic_fusion(const ScheduleState& st, const std::string& stage);

}  // namespace texc
