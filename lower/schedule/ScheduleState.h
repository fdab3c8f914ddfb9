// ScheduleState: what the schedule primitives rewrite, and the queries they share.
//
// The state is the op's loop AST (with Blocks) plus the current definition of every stage
// (cache_read/cache_write add stages). Loops are found by name: a loop's name is its variable's
// name ("C.i", or the name a primitive bound, "io"), unique within the AST. Every primitive is a
// function `void apply_<name>(ScheduleState&, const SchedStep&)` in its own file (Primitives.h);
// it checks its legality and reports misuse as a located diagnostic.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/Op.h"
#include "ir/Schedule.h"
#include "ir/Substitute.h"
#include "lower/passes/PlanStorage.h"

namespace texc {

/// prefetch(T, at, offset, from = L) as the schedule asked it (Prefetch.cpp); the prefetches are
/// placed once every primitive has run (inject_prefetches).
struct PrefetchRequest {
  Buffer buffer;          // T
  std::string at, from;   // loop names (from = at when not given)
  int64_t offset = 1;     // iterations of `from` ahead
  SourceLoc loc, at_loc, from_loc;
};

/// A tensor-core nest whose k tile does not divide the reduction (TensorizeMma.cpp): tensorize
/// dropped its reduction guard on the condition that zero_pad_k_tiles (lower/gpu/ZeroPadKTiles.h)
/// makes the fills of both operands' shared tiles write 0 past K, and refuses it there otherwise.
struct ZeroPaddedKTile {
  std::string stage;               // the stage of the tensorized Block (its body the mma call)
  size_t a_k_dim = 0, b_k_dim = 0;  // the dimension of A and of B that the reduction indexes
  Expr guard;                      // the dropped guard (for the message)
  std::string loop, intrinsic;     // tensorize(loop, intrinsic), for the refusal
  SourceLoc loc;
};

struct ScheduleState {
  OpDef op;                             // after split_nested_reductions
  LoweredFunc func;                     // the loop AST being scheduled
  std::map<std::string, Stage> stages;  // current definition of every stage, by name
  std::set<std::string> inlined;        // stages inlined into their consumers
  /// Loops that a primitive replaced, with what replaced them ("split replaced it by 'io' and
  /// 'ii'"), so that a later use of the old name says so.
  std::map<std::string, std::string> replaced_loops;
  std::set<std::string> user_named;     // stages the user's schedule mentions (no auto-fusion)
  /// Stages of imported injective ops whose carried schedule says compute_root: the automatic
  /// fusion does not inline them (lower/AutoFuse.h).
  std::set<std::string> kept_materialised;
  std::string target;                   // "x86", "arm", "interp", "cuda", "vdla"
  /// The definitions of the target's built-in intrinsics (ir/Target.h names them) for the
  /// configuration being compiled for: LowerOptions::builtin_intrinsics (vdla.gemm of the
  /// accelerator's block).
  std::vector<IntrinsicDef> builtin_intrinsics;
  /// Inner loops of splits whose factor exceeded the loop's extent (extent clamped), with that
  /// factor: bound to threadIdx.*, such a loop takes the factor back as its extent (Bind.cpp).
  std::map<std::string, int64_t> clamped_splits;
  /// Reduction loops bound to threadIdx.* (Bind.cpp): the loops lower_cross_thread_reductions
  /// turns into reductions across the threads; a thread loop not named here is a spatial one.
  std::set<std::string> thread_bound_reductions;
  /// Reduction loops bound to blockIdx.* (Bind.cpp): split-K, the loops
  /// lower_cross_block_reductions turns into per-block partials added atomically
  /// (lower/gpu/CrossBlockReduction.h).
  std::set<std::string> block_bound_reductions;
  /// Buffers whose rows storage_align pads (StorageAlign.cpp), by buffer name: plan_storage
  /// applies them when it sizes the buffer.
  StorageAligns storage_aligns;
  /// The schedule's prefetch() requests, in order (Prefetch.cpp).
  std::vector<PrefetchRequest> prefetches;
  /// Tensor-core nests whose operands' k tiles must be zero-padded (TensorizeMma.cpp).
  std::vector<ZeroPaddedKTile> zero_padded_k_tiles;

  static ScheduleState create(const OpDef& op, const std::string& target);

  const Stage& stage(const std::string& name, SourceLoc loc) const;
  bool has_stage(const std::string& name) const { return stages.count(name) != 0; }
  /// The loop named `name`, or a diagnostic at `loc`. "S.k" also finds the reduction loop of the
  /// hidden reduction stage of S (see SplitNestedReductions.h).
  const For* loop(const std::string& name, SourceLoc loc) const;
  /// nullptr if there is no such loop.
  const For* find_loop(const std::string& name) const;
  /// Fails with a diagnostic if a loop or stage is already called `name`.
  /// Notes that `primitive` replaced `loop` by the loops `by` (for the message of a later use).
  void record_replaced(const std::string& loop, const std::string& primitive, const std::vector<std::string>& by);
  void check_fresh_name(const std::string& name, SourceLoc loc) const;
  /// The loops enclosing `node` (outermost first), or nullopt-like empty+false if absent.
  bool path_to(const StmtNode* node, std::vector<const For*>* loops) const;
  /// Every Block of `stage` in the AST.
  std::vector<const Block*> blocks_of(const std::string& stage) const;
  /// The name of the stage whose Blocks lie under loop l ("" if several or none).
  std::string stage_under(const For* l) const;
  /// Replaces the statement `target` (by identity) by `replacement` (may be null to delete it).
  void replace(const StmtNode* target, Stmt replacement);
  /// Replaces every use of the buffers in `buffers` (a stage's buffer given another scope) in the
  /// loop AST, the stages' definitions and the stages' own buffers.
  void replace_buffers(const BufferMap& buffers);
  /// Registers `stage`, which `primitive` created and whose nest is already in the loop AST: in
  /// `stages`, in the op's stage list right before stage `before`, and as named by the schedule
  /// (no automatic fusion); then checks its data flow (check_dataflow, a diagnostic at loc).
  void add_stage_before(const Stage& stage, const std::string& before, const std::string& primitive, SourceLoc loc);
};

/// Replaces `target` by identity anywhere under root.
Stmt replace_stmt(const Stmt& root, const StmtNode* target, const Stmt& replacement);

/// The stage argument `arg` of a step (after the call's stage renaming), checked to exist.
std::string stage_arg(const ScheduleState& st, const SchedStep& step, size_t arg_index);
/// The name argument `arg` (a loop name, scope or thread tag), or a diagnostic.
const SchedArg& name_arg(const SchedStep& step, size_t arg_index);
/// The memory scope named by argument `arg`, as st.target declares it (ir/Target.h, find_scope:
/// its ranks and its own memories, vdla's vdla.inp/wgt/acc), or a diagnostic at the argument.
MemScope scope_arg(const ScheduleState& st, const SchedStep& step, size_t arg_index);
/// The integer argument `arg`, or a diagnostic.
int64_t int_arg(const SchedStep& step, size_t arg_index);
/// A loop argument after the call's stage renaming ("conv2d's Y.x" -> "Y.x").
std::string loop_name_arg(const SchedStep& step, size_t arg_index);
/// Checks the number of arguments and bound results.
void expect_arity(const SchedStep& step, size_t min_args, size_t max_args, size_t results);

}  // namespace texc
