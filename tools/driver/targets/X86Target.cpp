// x86 and x86-sse: x86-64 code from LLVM (the host's CPU, or --mcpu; x86-sse defaults to
// x86-64-v2, SSE4.2 without AVX: ir/Target.cpp), JIT-compiled in texc's process and run in a child
// process (backends/execute/JitExecutor.h under isolate, Isolate.h), which times its own calls by
// time_calls, on the runtime's threads (--threads, TEXC_NUM_THREADS); so a kernel that faults is a
// FAIL line, not the end of texc. A target CPU (--mcpu, --mattr) with features the host CPU lacks is
// an EnvironmentError naming them (exit 2), before anything is compiled. `texc tune` measures
// candidates through the same JIT executor in its measuring child (tuner/CpuRunners.h); tuning
// records are matched to this machine, since x86 knobs depend on its registers and caches.
#include <map>

#include "backends/execute/Isolate.h"
#include "backends/execute/JitExecutor.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "runtime/texrt.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/targets/Targets.h"
#include "tuner/CpuRunners.h"

namespace texc {

namespace {

// `funcs` (the entry last) in one JIT module, run in a child process.
std::shared_ptr<Executor> make_isolated_jit_executor(const TargetExecutors& executors, const std::vector<LoweredFunc>& funcs,
                                                     const std::map<std::string, void*>& symbols) {
  // Code for a CPU with features this host lacks would stop on an illegal instruction: say which.
  if (std::string why = host_cannot_run(*executors.cpu); !why.empty()) throw EnvironmentError(why);
  const LoweredFunc& entry = funcs.back();
  return isolate(make_jit_executor(funcs, *executors.cpu, symbols), "the compiled op '" + entry.name + "'",
                 count_inputs(entry));
}

std::shared_ptr<Executor> make_x86_executor(TargetExecutors& executors, const LoweredFunc& func, const OpDef&) {
  return make_isolated_jit_executor(executors, {func}, executors.externs.jit_symbols(func));
}

// A graph's kernels and its host entry in one JIT module; the entry is called.
std::shared_ptr<Executor> make_x86_graph_executor(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs,
                                                  const OpDef&) {
  std::map<std::string, void*> symbols;  // the kernels' extern functions (the entry calls only kernels)
  for (size_t k = 0; k + 1 < funcs.size(); ++k) symbols.merge(executors.externs.jit_symbols(funcs[k]));
  return make_isolated_jit_executor(executors, funcs, symbols);
}

void prepare_x86_run(TargetExecutors&, const RunRequest& request, RunOptions& options) {
  if (int n = request.requested_threads()) texrt_set_num_threads(n);
  options.threads = texrt_get_num_threads();
}

TargetBehaviour x86_family_target(const char* name) {
  TargetBehaviour b;
  b.name = name;
  b.make_executor = make_x86_executor;
  b.make_graph_executor = make_x86_graph_executor;
  b.prepare_run = prepare_x86_run;
  b.times_own_calls = true;  // the JIT child's time_calls
  b.format_run_result = format_own_timed_result;
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
