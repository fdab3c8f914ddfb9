// arm: AArch64 code from LLVM run by the arm runner (ArmExecutor.h): natively on aarch64, else
// under qemu-aarch64, whose times are labelled emulated. The runner's driver times its own calls
// (10 by default natively, 3 under emulation) on --threads / TEXC_NUM_THREADS threads (else every
// core). `texc run` checks the cross tools before compiling anything.
#include <algorithm>
#include <thread>

#include "tools/driver/ArmExecutor.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/targets/Targets.h"
#include "tuner/CpuRunners.h"

namespace texc {

namespace {

OpExecutor make_arm_executor_of(TargetExecutors& executors, const LoweredFunc& func, const OpDef&) {
  ArmRunOptions options = executors.arm;
  options.extra_link_inputs = executors.externs.arm_link_inputs(func);
  return make_arm_executor({func}, *executors.cpu, options, executors.arm_timing);
}

// A graph's kernels and its host entry linked into one program; the entry is called.
OpExecutor make_arm_graph_executor(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs, const OpDef&) {
  ArmRunOptions options = executors.arm;
  options.extra_link_inputs.clear();
  for (size_t k = 0; k + 1 < funcs.size(); ++k)  // the kernels' extern functions (the entry calls only kernels)
    for (const std::string& input : executors.externs.arm_link_inputs(funcs[k]))
      if (std::find(options.extra_link_inputs.begin(), options.extra_link_inputs.end(), input) ==
          options.extra_link_inputs.end())
        options.extra_link_inputs.push_back(input);
  return make_arm_executor(funcs, *executors.cpu, options, executors.arm_timing);
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
  const ArmRunResult& timing = *executors.arm_timing;
  if (timing.times_ms.empty()) return json ? format_result_json(result) : format_result_line(result);
  result.median_ms = timing.median_ms;
  result.gflops = result.median_ms > 0 ? flops / (result.median_ms * 1e6) : 0;
  std::string text = json ? format_result_json(result) : format_result_line(result);
  if (json) return text.substr(0, text.size() - 1) + ", \"timing\": \"" + timing.timing_label() + "\"}";
  size_t ms = text.find(" ms ");
  if (ms != std::string::npos && timing.emulated) text.insert(ms + 3, " (emulated)");
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
  b.set_timed_calls = [](TargetExecutors& executors, int repeat) { executors.arm.repeat = std::max(repeat, 1); };
  b.timed_calls = [](const TargetExecutors& executors) {
    return HostRunTiming{executors.arm_timing->times_ms, executors.arm_timing->median_ms};
  };
  b.format_run_result = format_arm_result;
  b.write_output = write_llvm_cpu_output;
  b.make_tuning_runner = make_arm_tuning_runner;
  return b;
}

}  // namespace texc
