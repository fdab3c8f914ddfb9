// TargetExecutors: how the lowered functions of an op are executed on the host — the OpExecutor
// (backends/interp/RunOp.h) that `texc run` hands to run_op and that Module::run (Module.h) calls
// on a program's own tensors. Each target's executor is its entry's make_executor
// (TargetRegistry.h; tools/driver/targets/ says what each one does); this holds the state they
// share: the CPU, the extern functions, the timed calls and their times, the VDLA configuration.
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

#include "backends/interp/RunOp.h"
#include "backends/llvm/ArmRunner.h"
#include "backends/llvm/LLVMBackend.h"
#include "backends/vdla/VdlaConfig.h"
#include "tools/driver/CompileOptions.h"
#include "tools/driver/ExternFunctions.h"
#include "tools/driver/JitExecutor.h"
#include "tools/driver/VdlaExecutor.h"
#include "tools/driver/VdlaGraphStats.h"

namespace texc {

/// The times of an op's timed calls (after the checked one), and their median.
struct HostRunTiming {
  std::vector<double> times_ms;
  double median_ms = 0;
};

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
  /// Forgets the times the executors measured (before the next op).
  void clear_timings();

  CompileOptions options;
  std::optional<CpuTargetOptions> cpu;
  ExternFunctions externs;
  ArmRunOptions arm;
  std::shared_ptr<ArmRunResult> arm_timing = std::make_shared<ArmRunResult>();
  int jit_repeat = 10;  // x86 and cuda: the timed calls after the checked one
  std::shared_ptr<JitTiming> jit_timing = std::make_shared<JitTiming>();
  std::optional<vdla::VdlaConfig> vdla_config;
  std::shared_ptr<VdlaRunStats> vdla_stats = std::make_shared<VdlaRunStats>();
  std::shared_ptr<VdlaGraphStats> vdla_graph_stats = std::make_shared<VdlaGraphStats>();  // vdla: a graph's run
  std::string trace_path;  // vdla: the simulator's timeline of the last run goes there ("" = none)
};

}  // namespace texc
