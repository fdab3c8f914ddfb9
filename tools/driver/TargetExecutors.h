// TargetExecutors: how the lowered functions of an op are executed on the host — the OpExecutor
// (backends/interp/RunOp.h) that `texc run` hands to run_op and that Module::run (Module.h) calls
// on a program's own tensors. Each function runs through the Executor (backends/execute/Executor.h)
// its target's entry makes (make_executor, TargetRegistry.h; tools/driver/targets/ says what each
// one does), the Executor `texc tune` and the schedule fuzzer run code through too; each execution
// of the OpExecutor is one Executor::run with `timed_rounds` timed rounds, its times left in
// `times`. This holds the state the entries share: the CPU, the extern functions, the timed rounds
// and their times, the VDLA configuration.
// An op with `const` inputs that feed stages of their own compiles to <op>_prepare and <op>
// (lower/SplitPrepare.h): its executor runs the prepare function once, untimed, into fresh buffers,
// then the op, timed as usual. An op compiled as a graph of kernels (docs/graph.md) runs its host
// entry on x86 and arm (one module with the kernels) and its kernels one by one on interp
// (GraphExecutor.h). Extern functions come from the options (ExternFunctions.h).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/execute/Executor.h"
#include "backends/interp/RunOp.h"
#include "backends/llvm/ArmRunner.h"
#include "backends/llvm/LLVMBackend.h"
#include "backends/vdla/VdlaConfig.h"
#include "tools/driver/CompileOptions.h"
#include "tools/driver/ExternFunctions.h"
#include "tools/driver/VdlaExecutor.h"
#include "tools/driver/VdlaGraphStats.h"

namespace texc {

struct TargetExecutors {
  /// Loads the extern libraries; for the LLVM CPU targets, the CPU (a bad mcpu throws
  /// TargetOptionError); for vdla, the configuration. For cuda, opts.arch must be set (open_cuda_device chooses it).
  explicit TargetExecutors(const CompileOptions& opts);

  /// How to execute `op` (its inputs, then its outputs), compiled to `funcs`
  /// (lower_op_functions: one function, or <op>_prepare then <op>).
  OpExecutor make_executor(const OpDef& op, const std::vector<LoweredFunc>& funcs);
  /// How to execute `op` without its prepare function: one function, or a graph of kernels then
  /// its host entry (lower_op_functions, LowerForTarget.h).
  OpExecutor make_main_executor(const OpDef& op, const std::vector<LoweredFunc>& funcs);
  /// How to execute one lowered function of `op` (the op itself, or one half of it).
  OpExecutor make_function_executor(const LoweredFunc& func, const OpDef& op);
  /// `executor` run with the timed rounds asked now, its times left in `times`.
  OpExecutor run_through(std::shared_ptr<Executor> executor);
  /// Forgets the times the executors measured (before the next op).
  void clear_timings();

  CompileOptions options;
  std::optional<CpuTargetOptions> cpu;
  ExternFunctions externs;
  ArmRunOptions arm;  // the arm runner's threads and extra link inputs (its repeat: the timed rounds)
  int timed_rounds = 0;  // the timed rounds of each execution after its checked call
  std::shared_ptr<CallTimes> times = std::make_shared<CallTimes>();  // those of the last execution
  std::optional<vdla::VdlaConfig> vdla_config;
  std::shared_ptr<VdlaRunStats> vdla_stats = std::make_shared<VdlaRunStats>();
  std::shared_ptr<VdlaGraphStats> vdla_graph_stats = std::make_shared<VdlaGraphStats>();  // vdla: a graph's run
  std::string trace_path;  // vdla: the simulator's timeline of the last run goes there ("" = none)
};

/// For a target whose executor times its own calls (TargetRegistry.h, times_own_calls): gives
/// `result` the median of the last execution's timed rounds and the GFLOP/s of `flops` at it;
/// false (and `result` as run_op timed it) when that execution timed none.
bool take_executor_time(const TargetExecutors& executors, RunResult& result, double flops);
/// `texc run`'s table line (or --json object) of `result` with the executor's time (take_executor_time).
std::string format_own_timed_result(const TargetExecutors& executors, RunResult& result, double flops, bool json);

}  // namespace texc
