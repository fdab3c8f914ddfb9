// arm: AArch64 code from LLVM run by the arm runner (backends/execute/ArmExecutor.h): natively on aarch64, else
// under qemu-aarch64, whose times are labelled emulated. The runner's driver times its own calls
// (10 by default natively, 3 under emulation) on --threads / TEXC_NUM_THREADS threads (else every
// core). `texc run` checks the cross tools before compiling anything.
#include <algorithm>
#include <thread>

#include "backends/execute/ArmExecutor.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/targets/Targets.h"
#include "tuner/CpuRunners.h"

namespace texc {

namespace {

// On an aarch64 host the op runs natively: a CPU with features this one lacks would stop on an
// illegal instruction (under qemu, elsewhere, every feature is emulated).
std::shared_ptr<Executor> make_checked_arm_executor(const TargetExecutors& executors, const std::vector<LoweredFunc>& funcs,
                                                    const ArmRunOptions& options) {
  if (std::string why = host_cannot_run(*executors.cpu); !why.empty()) throw EnvironmentError(why);
  return make_arm_executor(funcs, *executors.cpu, options);
}

std::shared_ptr<Executor> make_arm_executor_of(TargetExecutors& executors, const LoweredFunc& func, const OpDef&) {
  ArmRunOptions options = executors.arm;
  options.extra_link_inputs = executors.externs.arm_link_inputs(func);
  return make_checked_arm_executor(executors, {func}, options);
}

// A graph's kernels and its host entry linked into one program; the entry is called.
std::shared_ptr<Executor> make_arm_graph_executor(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs,
                                                  const OpDef&) {
  ArmRunOptions options = executors.arm;
  options.extra_link_inputs.clear();
  for (size_t k = 0; k + 1 < funcs.size(); ++k)  // the kernels' extern functions (the entry calls only kernels)
    for (const std::string& input : executors.externs.arm_link_inputs(funcs[k]))
      if (std::find(options.extra_link_inputs.begin(), options.extra_link_inputs.end(), input) ==
          options.extra_link_inputs.end())
        options.extra_link_inputs.push_back(input);
  return make_checked_arm_executor(executors, funcs, options);
}

void prepare_arm_run(TargetExecutors& executors, const RunRequest& request, RunOptions& options) {
  check_arm_tools();  // a missing cross compiler or emulator: exit 2 before compiling anything
  int threads = request.requested_threads();
  executors.arm.num_threads = threads ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
  options.threads = executors.arm.num_threads;
}

// The table line or JSON object of an arm result, with its timing labelled (cli.md: times under
// emulation are not performance figures).
std::string format_arm_result(const TargetExecutors& executors, RunResult& result, double flops, bool json) {
  if (!take_executor_time(executors, result, flops)) return json ? format_result_json(result) : format_result_line(result);
  const std::string& label = executors.times->label;  // ArmExecutor.h: "emulated (qemu-aarch64)" or "native"
  std::string text = json ? format_result_json(result) : format_result_line(result);
  if (json) return text.substr(0, text.size() - 1) + ", \"timing\": \"" + label + "\"}";
  size_t ms = text.find(" ms ");
  if (ms != std::string::npos && label.rfind("emulated", 0) == 0) text.insert(ms + 3, " (emulated)");
  return text;
}

std::unique_ptr<Runner> make_arm_tuning_runner(const CompileOptions& opts) {
  ArmRunOptions options;
  check_arm_tools(options);
  return make_arm_runner(cpu_target_options(opts), options);
}

}  // namespace

TargetBehaviour arm_target() {
  TargetBehaviour b;
  b.name = "arm";
#if defined(__aarch64__)
  b.run_repeat = 10;
#else
  b.run_repeat = 3;  // under qemu-aarch64
#endif
  b.make_executor = make_arm_executor_of;
  b.make_graph_executor = make_arm_graph_executor;
  b.prepare_run = prepare_arm_run;
  b.times_own_calls = true;  // the arm driver's clock
  b.format_run_result = format_arm_result;
  b.write_output = write_llvm_cpu_output;
  b.make_tuning_runner = make_arm_tuning_runner;
  return b;
}

}  // namespace texc
