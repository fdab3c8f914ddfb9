// What the stage-moving primitives (compute_at, compute_root, inline, cache_read, cache_write) and
// automatic fusion share: where a stage's Block sits and which loops are its own, the accesses of
// a buffer under a loop, bound inference (the region those accesses touch per iteration of a
// loop), rebuilding a stage's loop nest over a region, and the data-flow check every move ends with.
//
// Bound inference (TVM InferBound, TensorIR compute_at): the loops from the root down to the
// attach loop L stay symbolic, the loops strictly inside L are relaxed over their ranges, the
// index expressions (with Block bindings substituted, so split o*F+i and fuse f/E, f%E bindings
// are seen through) are bounded per dimension and unioned. Each extent is made a constant (a
// constant upper bound over the outer loops when it depends on them), and a dimension whose region
// cannot be bounded, or would not be smaller than the tensor, covers the whole dimension.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "lower/analysis/BufferAccess.h"
#include "lower/analysis/Region.h"
#include "lower/schedule/ScheduleState.h"

namespace texc {

/// Where a stage's computation is: its Block, and the statement that holds it and nothing else.
struct StageSite {
  Stmt block_stmt;
  const Block* block = nullptr;
  /// The outermost statement (possibly the Block) whose subtree holds this Block and no other
  /// stage's Block or extern call: removing it removes the stage's computation and nothing else.
  Stmt nest_top;
  std::vector<const For*> own_loops;     // loops from nest_top down to the Block, outermost first
  std::vector<const For*> attach_loops;  // loops enclosing nest_top, outermost first
  bool is_root_statement = false;        // nest_top is a statement of the function's top level
};

/// The site of `stage`, or nullopt when it has no Block (inlined or tensorized).
std::optional<StageSite> find_stage_site(const ScheduleState& st, const std::string& stage);
/// The site of `stage` for `primitive`; a diagnostic at loc when the stage has no Block or when
/// another stage is computed inside one of its loops (moving it would break that stage).
StageSite require_stage_site(const ScheduleState& st, const std::string& stage, const std::string& primitive,
                             SourceLoc loc);
/// The same without throwing: nullopt, with *problem set to that diagnostic, where
/// require_stage_site throws.
std::optional<StageSite> movable_stage_site(const ScheduleState& st, const std::string& stage,
                                            const std::string& primitive, SourceLoc loc, Diagnostic* problem);
/// True if the site is the stage's unscheduled nest: one loop per iter var, named
/// "<stage>.<axis>" in iter-var order, serial, each binding driven by its own loop. Otherwise sets
/// *first_changed to the name of the first loop that is not (or the stage name if loops are missing).
bool is_unscheduled_nest(const StageSite& site, std::string* first_changed);

bool is_op_output(const ScheduleState& st, const std::string& stage);
/// The stage whose buffer is `buffer` ("" for op inputs and unknown buffers).
std::string stage_of_buffer(const ScheduleState& st, const BufferNode* buffer);

/// A fresh nest for the stage of `block`: spatial loops "<stage>.<axis>" over [0, extent[d])
/// bound to region.min[d] + loop, reduction loops over their whole domains, and a predicate that
/// keeps every spatial iter var inside its domain wherever that is not provable with the `outer`
/// loops' ranges. The Block's init and body are kept.
Stmt build_nest_over_region(const Block* block, const Region& region, const std::vector<const For*>& outer);
/// A fresh nest over the stage's whole domain, like the default loops (no predicate).
Stmt build_full_nest(const Block* block);

/// The statement list of s (a Seq's statements, or s itself).
std::vector<Stmt> statement_list(const Stmt& s);
/// True if s reads `buffer` anywhere.
bool reads_buffer(const Stmt& s, const BufferNode* buffer);
/// Inserts `nest` into the statement list of `body` right before the first statement that reads
/// `buffer` (at the end if none does).
Stmt insert_before_first_reader(const Stmt& body, const Stmt& nest, const BufferNode* buffer);

/// Checks that `stage` sits where its data flow allows: every stage it reads is computed before
/// it, inside the loops that producer is attached to, and every stage reading it comes after it,
/// inside the loops it is attached to. Returns a description of the first problem, or nullopt.
std::optional<std::string> dataflow_problem(const ScheduleState& st, const std::string& stage);
/// The same as a diagnostic "cannot <primitive> '<stage>' ...: <problem>" at loc.
void check_dataflow(const ScheduleState& st, const std::string& stage, const std::string& primitive, SourceLoc loc);
/// That diagnostic, or nullopt when the data flow is sound (does not throw).
std::optional<Diagnostic> dataflow_diagnostic(const ScheduleState& st, const std::string& stage,
                                              const std::string& primitive, SourceLoc loc);

}  // namespace texc
