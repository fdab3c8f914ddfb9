// Every schedule primitive of language.md, one function each (one file each), applied to the
// state in the order the schedule block lists them. See ScheduleState.h.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/Remark.h"
#include "lower/schedule/ScheduleState.h"

namespace texc {

void apply_split(ScheduleState& st, const SchedStep& step);         // Split.cpp
void apply_tile(ScheduleState& st, const SchedStep& step);          // Tile.cpp
void apply_fuse(ScheduleState& st, const SchedStep& step);          // Fuse.cpp
void apply_reorder(ScheduleState& st, const SchedStep& step);       // Reorder.cpp
void apply_compute_at(ScheduleState& st, const SchedStep& step);    // ComputeAt.cpp
void apply_inline(ScheduleState& st, const SchedStep& step);        // Inline.cpp
void apply_compute_root(ScheduleState& st, const SchedStep& step);  // ComputeRoot.cpp
void apply_cache_read(ScheduleState& st, const SchedStep& step);    // CacheRead.cpp
void apply_cache_write(ScheduleState& st, const SchedStep& step);   // CacheWrite.cpp
void apply_bind(ScheduleState& st, const SchedStep& step);          // Bind.cpp
void apply_parallel(ScheduleState& st, const SchedStep& step);      // Parallel.cpp
void apply_vectorize(ScheduleState& st, const SchedStep& step);     // Vectorize.cpp
void apply_unroll(ScheduleState& st, const SchedStep& step);        // Unroll.cpp
void apply_tensorize(ScheduleState& st, const SchedStep& step);     // Tensorize.cpp
void apply_rfactor(ScheduleState& st, const SchedStep& step);       // Rfactor.cpp
void apply_storage_align(ScheduleState& st, const SchedStep& step); // StorageAlign.cpp
void apply_double_buffer(ScheduleState& st, const SchedStep& step); // DoubleBuffer.cpp
void apply_prefetch(ScheduleState& st, const SchedStep& step);      // Prefetch.cpp

/// inline(stage) where it can be applied to st as it is (true); otherwise false, st unchanged, and
/// *why (when given) set to the diagnostic inline would report, located at loc. Never throws for
/// the user's input (Inline.cpp).
bool try_inline(ScheduleState& st, const std::string& stage, SourceLoc loc, Diagnostic* why = nullptr);

/// Places the prefetches the schedule asked for (st.prefetches), once every primitive has run
/// (Prefetch.cpp): on x86, arm and interp, a nest of prefetch() calls at the top of each `at`
/// loop's body; on the other targets none, a remark at each prefetch instead.
void inject_prefetches(ScheduleState& st, std::vector<Remark>& remarks);

/// Applies the steps in order (dispatching on the primitive's name).
void apply_schedule(ScheduleState& st, const std::vector<SchedStep>& steps);

/// The rewrite at the heart of split: loop `l` becomes outer (extent ceil(E/F)) and inner
/// (extent F) loops; `l`'s variable becomes outer*F + inner + min; when F does not divide E, every
/// Block under the loop gets the predicate `outer*F + inner < E`. Returns the new outer loop.
Stmt split_loop(const For* l, int64_t factor, const std::string& outer_name, const std::string& inner_name);
/// Conjoins `cond` to the predicate of every Block under s.
Stmt add_block_predicate(const Stmt& s, const Expr& cond);
/// True if loop l's variable drives a reduction iter var of some Block under it.
bool is_reduction_loop(const For* l, std::string* stage = nullptr);
/// Applies `kind` (and thread tag) to the loop named by argument 0 of the step.
void annotate_loop(ScheduleState& st, const SchedStep& step, ForKind kind, const std::string& tag);

}  // namespace texc
