// infer_gpu_scopes: the memory scope of an intermediate stage computed inside a GPU kernel's bound
// loops (TVM's InferStorageScope).
//
// A stage the schedule left in `global` memory but computed at a loop inside a thread loop
// (threadIdx.* or vthread among the loops around its nest, compute_at's attach path) becomes
// `local`: each thread computes, and reads back, its own part. One computed inside a block loop
// (blockIdx.*) but outside the thread loops becomes `shared`: the block's threads compute it for
// the block. Without this, a `global` stage's region is relaxed over every thread and block
// (lower/analysis/Region.h) and every thread computes all of it, racing with the others on the same
// elements. Stages at the root (their own nests bound to threads: the stages of one block, ordered
// by barriers; also a stage whose enclosing bound loops hold none of its readers: they are its own
// loops, with other stages computed inside them), op outputs and stages with an explicit
// `local`/`shared` scope are left alone, as is
// every CPU target. gpu_scope_of_attach gives compute_at the same scope for its bound inference.
#pragma once
#include <vector>

#include "lower/schedule/ScheduleState.h"

namespace texc {

/// The scope a `global` stage computed inside `attach` (the loops around its nest, outermost
/// first) gets on a GPU: local under a thread or vthread loop, shared under a block loop only,
/// else global.
MemScope gpu_scope_of_attach(const std::vector<const For*>& attach);

void infer_gpu_scopes(ScheduleState& st);

}  // namespace texc
