// interp: the loop AST run on texc's loop interpreter (backends/interp/LoopInterpreter.h), the
// calls timed by the caller; in a child process (ChildProcess.h) when the op calls extern
// functions from --extern-lib/--extern-src, which may fault. `texc run` calls each op once by
// default; `texc tune` measures candidates on the interpreter (tuner/CpuRunners.h).
#include "backends/interp/LoopInterpreter.h"
#include "tools/driver/ChildProcess.h"
#include "tools/driver/targets/Targets.h"
#include "tuner/CpuRunners.h"

namespace texc {

namespace {

OpExecutor make_interp_executor(TargetExecutors& executors, const LoweredFunc& func, const OpDef& op) {
  const CompileOptions& options = executors.options;
  executors.externs.register_with_loop_interpreter(func);
  auto interp = std::make_shared<LoopInterpreter>(func);
  bool calls_libraries = !extern_calls({func}).empty() && (!options.extern_libs.empty() || !options.extern_srcs.empty());
  if (!calls_libraries) return [interp](std::vector<Tensor*>& args) { interp->run(args); };
  // C functions from --extern-lib/--extern-src can fault: the interpreter runs in a child.
  std::string what = "op '" + op.name + "' (with its extern functions)";
  size_t num_inputs = op.inputs.size();
  return [interp, what, num_inputs](std::vector<Tensor*>& args) {
    std::vector<Tensor*> outputs(args.begin() + std::min(num_inputs, args.size()), args.end());
    run_in_child_process(what, outputs, [&] { interp->run(args); });
  };
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
