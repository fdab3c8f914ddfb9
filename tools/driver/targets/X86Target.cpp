// x86 and x86-sse: x86-64 code from LLVM (the host's CPU, or --mcpu; x86-sse defaults to
// x86-64-v2, SSE4.2 without AVX: ir/Target.cpp), JIT-compiled and run in a child process that
// times its own calls (JitExecutor.h), on the runtime's threads (--threads, TEXC_NUM_THREADS).
// `texc tune` measures candidates the same way (tuner/CpuRunners.h); tuning records are matched
// to this machine, since x86 knobs depend on its registers and caches.
#include <map>

#include "runtime/texrt.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/targets/Targets.h"
#include "tuner/CpuRunners.h"

namespace texc {

namespace {

OpExecutor make_x86_executor(TargetExecutors& executors, const LoweredFunc& func, const OpDef&) {
  return make_jit_executor({func}, *executors.cpu, executors.externs.jit_symbols(func), executors.jit_repeat,
                           executors.jit_timing);
}

// A graph's kernels and its host entry in one JIT module; the entry is called.
OpExecutor make_x86_graph_executor(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs, const OpDef&) {
  std::map<std::string, void*> symbols;  // the kernels' extern functions (the entry calls only kernels)
  for (size_t k = 0; k + 1 < funcs.size(); ++k) symbols.merge(executors.externs.jit_symbols(funcs[k]));
  return make_jit_executor(funcs, *executors.cpu, symbols, executors.jit_repeat, executors.jit_timing);
}

void prepare_x86_run(TargetExecutors&, const RunRequest& request, RunOptions& options) {
  if (int n = request.requested_threads()) texrt_set_num_threads(n);
  options.threads = texrt_get_num_threads();
}

// The JIT child times its calls, and the result shows that time.
std::string format_x86_result(const TargetExecutors& executors, RunResult& result, double flops, bool json) {
  if (!executors.jit_timing->times_ms.empty()) {
    result.median_ms = executors.jit_timing->median_ms;
    result.gflops = result.median_ms > 0 ? flops / (result.median_ms * 1e6) : 0;
  }
  return json ? format_result_json(result) : format_result_line(result);
}

TargetBehaviour x86_family_target(const char* name) {
  TargetBehaviour b;
  b.name = name;
  b.make_executor = make_x86_executor;
  b.make_graph_executor = make_x86_graph_executor;
  b.prepare_run = prepare_x86_run;
  b.set_timed_calls = [](TargetExecutors& executors, int repeat) { executors.jit_repeat = repeat; };
  b.timed_calls = [](const TargetExecutors& executors) {
    return HostRunTiming{executors.jit_timing->times_ms, executors.jit_timing->median_ms};
  };
  b.format_run_result = format_x86_result;
  b.write_output = write_llvm_cpu_output;
  b.make_tuning_runner = [](const CompileOptions& opts) { return make_x86_runner(cpu_target_options(opts)); };
  b.records_machine = [](const CompileOptions& opts) -> std::optional<Machine> {
    return x86_machine(cpu_target_options(opts));
  };
  return b;
}

}  // namespace

TargetBehaviour x86_target() { return x86_family_target("x86"); }

TargetBehaviour x86_sse_target() { return x86_family_target("x86-sse"); }

}  // namespace texc
