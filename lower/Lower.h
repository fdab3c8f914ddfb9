// lower_op: an elaborated op and a target in, a lowered loop AST out. The passes are listed in
// order in Lower.cpp; those lists are the table of contents of texc's lowering:
//
//   default_loops                 one loop nest per stage (lower/DefaultLoops.h)
//   schedule passes (every target) auto_inline, apply_schedule, attach_hidden_reductions,
//                                 fuse_into_reductions: rewrites of the Block-level loop AST
//   common function passes        lower_blocks, plan_storage, flatten_storage, simplify
//   the target's function passes  CPU (x86, arm, interp): partition_loops, vectorize_loops,
//                                 unroll_loops, remove_no_ops, simplify_final
//                                 vdla: remove_no_ops (its code generator walks the loops)
//                                 cuda, cuda-interp: (schedule passes gpu_default_schedule and
//                                 infer_gpu_scopes first) remove_no_ops, simplify_final,
//                                 lower_cross_thread_reductions, single_thread_stores,
//                                 lower_cross_block_reductions,
//                                 hoist_gpu_allocations, insert_barriers, expand_virtual_threads,
//                                 make_device_function (lower/gpu/)
//
// Every pass entry says which targets run it (PassTargets); a new family of targets marks the
// passes it runs in Lower.cpp's lists.
#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/Op.h"
#include "ir/Remark.h"
#include "ir/Schedule.h"
#include "ir/TargetProperties.h"
#include "lower/passes/PlanStorage.h"
#include "lower/schedule/TensorizeFallback.h"

namespace texc {

struct LowerOptions {
  std::string target = "interp";  // selects the schedule blocks: cpu for x86/arm/interp, ...
  std::string arch;                // cuda, cuda-interp: the --arch (empty: kDefaultCudaArch, ir/Target.h)
  KnobConfig knobs;               // knob values; missing knobs take their first value
  bool no_fuse = false;           // --no-fuse: no automatic fusion by stage kind
  bool print_after_each = false;  // --print-after-each: the IR after every pass
  bool print_changed = false;     // --print-changed: the IR after each pass that changed it
  bool time_passes = false;       // --time-passes: a table of pass times at the end
#ifdef NDEBUG
  bool verify = false;            // run the IR verifier after every pass (names the pass that broke it);
#else                             // on by default in debug builds, --verify-each turns it on anywhere
  bool verify = true;
#endif
  std::ostream* log = nullptr;    // where printing goes (default std::cerr)
  /// x86, arm: the target CPU's features, so that a tensorize with an instruction it lacks falls
  /// back to a portable schedule or is an error (lower/schedule/TensorizeFallback.h). Without
  /// `missing`, every intrinsic is assumed available.
  CpuFeatureQuery cpu_features;
  /// The values of `target.vector_bits` etc. in the schedules (ir/TargetProperties.h); without
  /// them, baseline_target_properties(target).
  std::optional<TargetProperties> target_properties;
  /// The definitions of the target's built-in intrinsics (ir/Target.h names them; vdla: vdla.gemm)
  /// for the configuration being compiled for: the driver's target entry makes them
  /// (tools/driver/TargetRegistry.h), backends/vdla/VdlaIntrinsics.h for vdla. A tensorize with a
  /// built-in that has no definition here is an internal error.
  std::vector<IntrinsicDef> builtin_intrinsics;
  /// When set, filled with the remarks of this lowering (ir/Remark.h): where the schedule was not
  /// honoured as written, located at its primitives (lower/Remarks.h).
  std::vector<Remark>* remarks = nullptr;
  /// Called after every pass (and after default_loops) with the pass's name and the loop AST: how
  /// callers (the tuner's features, tests) see the IR at any step without parsing printed logs.
  std::function<void(const std::string& pass, const LoweredFunc& func)> after_pass;
};

/// The targets a pass runs for, as a set of families (pass_targets_of names a target's family).
enum PassTargets : uint8_t {
  kCpuPasses = 1,   // x86, arm, interp
  kGpuPasses = 2,   // cuda, cuda-interp
  kVdlaPasses = 4,  // vdla
  kAllPasses = kCpuPasses | kGpuPasses | kVdlaPasses,
};
/// The family of `target` (one bit of PassTargets).
PassTargets pass_targets_of(const std::string& target);

/// What a function pass may know besides the function: the facts of the applied schedule that the
/// loop AST does not carry. lower_op fills it from the schedule; a pass test runs the same `run`
/// with the empty context, which is what an op whose schedule has none of these gets.
struct PassContext {
  /// Bound loop name -> where bind() named it: lower_cross_thread_reductions's errors point there.
  std::map<std::string, SourceLoc> bind_locs;
  /// The loops the schedule bound to threadIdx.* that are reduction loops
  /// (ScheduleState::thread_bound_reductions); null: every thread loop that matches the pattern.
  const std::set<std::string>* thread_bound_reductions = nullptr;
  /// The loops the schedule bound to blockIdx.* that are reduction loops (split-K,
  /// ScheduleState::block_bound_reductions); null: every block loop that matches the pattern.
  const std::set<std::string>* block_bound_reductions = nullptr;
  /// The schedule's storage_align() requests, by buffer (lower/passes/PlanStorage.h).
  StorageAligns storage_aligns;
};

/// A pass from a loop AST without schedule state to another: everything after the schedule. The
/// entry says which targets run it and what the verifier may require once it has run.
struct FunctionPass {
  const char* name;
  const char* summary;
  PassTargets targets;
  std::function<LoweredFunc(LoweredFunc, const PassContext&)> run;
  bool lowers_blocks = false;  // no Block is left after it
  bool plans_storage = false;  // every intermediate is allocated after it
};

/// The function passes lower_op runs for `target`, in order: the common ones, then the target's.
std::vector<FunctionPass> function_passes(const std::string& target);
/// A function pass of any target by name (pass tests run one pass on IR text), or null.
const FunctionPass* find_function_pass(const std::string& name);

/// Lowers one op. Throws UserError for schedule mistakes (located at the primitive).
LoweredFunc lower_op(const OpDef& op, const LowerOptions& options);

/// The names of every pass lower_op runs for `target`, in order (for --help and --print-after-each).
std::vector<std::string> lowering_pass_names(const std::string& target);

}  // namespace texc
