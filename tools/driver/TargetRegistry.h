// TargetRegistry: what each target does on the host, one entry per target of ir/Target.h (which
// says what a target *is*: its passes, scopes, thread tags, outputs, LLVM CPU). An entry holds the
// target's behaviour as functions: the Executor a lowered function runs through (TargetExecutors,
// backends/execute/Executor.h), how `texc tune` measures a candidate (a Runner over the same
// Executor), how many calls `texc run` times, whether a device must be opened first, who times the
// calls and how the time is reported, which machine its tuning records must come from, how its own
// outputs are written (Module::write) and what its built-in intrinsics are for the configuration
// compiled for (the lowering). Generic code (TargetExecutors, Module::run, Module::write,
// make_tuning_runner, knobs_from_records, lower_for_target, `texc run`) asks the entry, never the
// target's name.
//
// Each family's entries are written next to each other in tools/driver/targets/ (one file per
// family: InterpTarget.cpp, X86Target.cpp, ArmTarget.cpp, CudaTarget.cpp, VdlaTarget.cpp) and
// listed once, explicitly, in TargetRegistry.cpp's registered_targets() — no static
// initialisation. docs/architecture.md, "Adding a target", says what a new target touches.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/execute/Executor.h"
#include "backends/interp/RunOp.h"
#include "ir/Op.h"
#include "tools/driver/CompileOptions.h"
#include "tools/driver/ModuleOutput.h"
#include "tools/driver/TargetExecutors.h"
#include "tuner/Machine.h"
#include "tuner/Measure.h"

namespace texc {

/// What `texc run` asks of a run beyond the compile options.
struct RunRequest {
  int repeat = 0;                          // --repeat (0: not given)
  std::function<int()> requested_threads;  // --threads, else TEXC_NUM_THREADS, else 0 (throws for a bad value)
};

struct TargetBehaviour {
  std::string name;  // the ir/Target.h entry this is the behaviour of
  /// The calls of each op `texc run` times without --repeat.
  int run_repeat = 10;
  /// Readies the host before anything is compiled or run for the target: cuda opens device 0 and
  /// resolves opts.arch (throws EnvironmentError "no CUDA device", exit 2). Null: nothing to ready.
  void (*open_device)(CompileOptions& opts) = nullptr;
  /// The Executor (backends/execute/Executor.h) of one lowered function of `op`, made with the
  /// executors' state (CPU, externs, configuration). Every target has one.
  std::shared_ptr<Executor> (*make_executor)(TargetExecutors& executors, const LoweredFunc& func,
                                             const OpDef& op) = nullptr;
  /// The Executor of an op compiled as a graph of kernels (docs/graph.md): `funcs` are its kernels
  /// then its host entry. Null: the kernels one by one, each through make_executor (interp).
  std::shared_ptr<Executor> (*make_graph_executor)(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs,
                                                   const OpDef& op) = nullptr;
  /// `texc run`'s set-up before the first op: the target's threads and tools (x86 sets the
  /// runtime's threads, arm checks its cross tools and chooses its threads). Null: one thread.
  void (*prepare_run)(TargetExecutors& executors, const RunRequest& request, RunOptions& options) = nullptr;
  /// Whether `texc run` and Module::run take the executor's own times: the checked call and the
  /// `repeat` timed rounds are one Executor::run, and its times are the op's (x86, cuda, arm).
  /// False: each execution is the checked call alone, and the caller times whole executions
  /// (run_op; Module::run by time_calls): interp, cuda-interp, vdla.
  bool times_own_calls = false;
  /// `texc run`'s table line (or --json object) for `result` of an op doing `flops` operations,
  /// with the target's own time in it (the executor's times, the simulated time), labelled, and
  /// the lines that follow it (vdla's statistics). Null: the result as run_op timed it.
  std::string (*format_run_result)(const TargetExecutors& executors, RunResult& result, double flops, bool json) = nullptr;
  /// The tuner's Runner (tuner/Measure.h) for `texc tune`. Null: the target has none (an
  /// EnvironmentError says so).
  std::unique_ptr<Runner> (*make_tuning_runner)(const CompileOptions& opts) = nullptr;
  /// The definitions of the target's built-in intrinsics (ir/Target.h names them) for the
  /// configuration `opts` compiles for, handed to the lowering (LowerOptions::builtin_intrinsics):
  /// vdla's vdla.gemm of --vdla-config's block (backends/vdla/VdlaIntrinsics.h). Null: it has none.
  std::vector<IntrinsicDef> (*builtin_intrinsics)(const CompileOptions& opts) = nullptr;
  /// Writes `kind`, one of the target's outputs that is its own code (ir/Target.h's outputs other
  /// than loops, graph and graph-dot, which Module::write writes for every target), of the module
  /// `out` to `path`: LLVM CPU objects, headers, IR and assembly (x86, x86-sse, arm), PTX and the
  /// CUDA host object (cuda), the VDLA program and its listing (vdla). Null: the target has no
  /// output of its own (interp, cuda-interp).
  void (*write_output)(ModuleOutput& out, const std::string& kind, const std::string& path) = nullptr;
  /// The machine a tuning record must have been measured on to be chosen without a warning (x86:
  /// its knobs depend on registers and caches). Null: records of any machine apply.
  std::optional<Machine> (*records_machine)(const CompileOptions& opts) = nullptr;
};

/// Every target's behaviour, in the order of all_targets() (ir/Target.h): one entry per target.
const std::vector<TargetBehaviour>& registered_targets();
/// The behaviour of the target named `name` (a name of ir/Target.h: an internal error otherwise).
const TargetBehaviour& target_behaviour(const std::string& name);
/// The definitions of opts.target's built-in intrinsics for its configuration (empty when it has
/// none): what every lowering for it is given (LowerOptions::builtin_intrinsics).
std::vector<IntrinsicDef> builtin_intrinsics_of(const CompileOptions& opts);

}  // namespace texc
