// interp: the loop AST run on texc's loop interpreter (backends/execute/InterpreterExecutors.h),
// the calls timed by the caller; in a child process (backends/execute/Isolate.h) when the op calls
// extern functions from --extern-lib/--extern-src, which may fault. `texc run` calls each op once by
// default; `texc tune` measures candidates on the interpreter (tuner/CpuRunners.h).
#include "backends/execute/InterpreterExecutors.h"
#include "backends/execute/Isolate.h"
#include "tools/driver/targets/Targets.h"
#include "tuner/CpuRunners.h"

namespace texc {

namespace {

std::shared_ptr<Executor> make_interp_executor(TargetExecutors& executors, const LoweredFunc& func, const OpDef& op) {
  const CompileOptions& options = executors.options;
  executors.externs.register_with_loop_interpreter(func);
  std::shared_ptr<Executor> interp = make_loop_interpreter_executor(func);
  bool calls_libraries = !extern_calls({func}).empty() && (!options.extern_libs.empty() || !options.extern_srcs.empty());
  if (!calls_libraries) return interp;
  // C functions from --extern-lib/--extern-src can fault: the interpreter runs in a child.
  return isolate(interp, "op '" + op.name + "' (with its extern functions)", op.inputs.size());
}

}  // namespace

TargetBehaviour interp_target() {
  TargetBehaviour b;
  b.name = "interp";
  b.run_repeat = 1;
  b.make_executor = make_interp_executor;
  b.make_tuning_runner = [](const CompileOptions&) { return make_interp_runner(); };
  return b;
}

}  // namespace texc
