#include "tools/driver/TargetExecutors.h"

#include <map>

#include "ir/Diagnostics.h"
#include "ir/Target.h"
#include "lower/SplitPrepare.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/GraphExecutor.h"
#include "tools/driver/LowerForTarget.h"
#include "tools/driver/TargetRegistry.h"

namespace texc {

TargetExecutors::TargetExecutors(const CompileOptions& opts) : options(opts), externs(opts) {
  if (is_llvm_cpu_target(opts.target)) cpu = cpu_target_options(opts);
  if (generates_vdla_programs(opts.target)) vdla_config = vdla_config_of(opts);
}


OpExecutor TargetExecutors::make_executor(const OpDef& op, const std::vector<LoweredFunc>& funcs) {
  std::optional<PreparedOp> halves = funcs.size() == 1 ? std::nullopt : split_prepare(op);
  if (!halves) return make_main_executor(op, funcs);
  std::shared_ptr<PreparedOp> split = std::make_shared<PreparedOp>(*halves);
  const int rounds = timed_rounds;
  timed_rounds = 0;  // the prepare function: its checked call only
  OpExecutor prepare = make_function_executor(funcs[0], split->prepare);
  timed_rounds = rounds;
  OpExecutor main = make_main_executor(split->main, std::vector<LoweredFunc>(funcs.begin() + 1, funcs.end()));
  return [split, prepare, main, op](std::vector<Tensor*>& args) {
    std::map<std::string, Tensor*> by_name;
    for (size_t i = 0; i < op.inputs.size() && i < args.size(); ++i) by_name[op.inputs[i]->name] = args[i];
    std::vector<Tensor> prepared;
    prepared.reserve(split->prepare.outputs.size());
    std::vector<Tensor*> prepare_args;
    for (const Buffer& b : split->prepare.inputs) prepare_args.push_back(by_name.at(b->name));
    for (const Buffer& b : split->prepare.outputs) {
      prepared.emplace_back(b->dtype, buffer_shape(b));
      prepared.back().fill_poison();
      prepare_args.push_back(&prepared.back());
      by_name[b->name] = &prepared.back();
    }
    prepare(prepare_args);
    std::vector<Tensor*> main_args;
    for (const Buffer& b : split->main.inputs) main_args.push_back(by_name.at(b->name));
    main_args.insert(main_args.end(), args.begin() + std::min(op.inputs.size(), args.size()), args.end());
    main(main_args);
  };
}

OpExecutor TargetExecutors::make_main_executor(const OpDef& op, const std::vector<LoweredFunc>& funcs) {
  if (funcs.size() == 1) return make_function_executor(funcs[0], op);
  // A graph of kernels, then its host entry (docs/graph.md): the target runs the entry when it can
  // call between functions (x86, arm), else the kernels one by one.
  const TargetBehaviour& target = target_behaviour(options.target);
  if (target.make_graph_executor) return run_through(target.make_graph_executor(*this, funcs, op));
  std::vector<LoweredFunc> kernels(funcs.begin(), funcs.end() - 1);
  std::optional<GraphOps> graph = graph_of(op, options);
  TEXC_CHECK(graph && graph->kernels.size() == kernels.size())
      << "op '" << op.name << "' compiled to " << kernels.size() << " kernels and an entry, but is no such graph";
  std::vector<OpExecutor> executors;
  for (size_t k = 0; k < kernels.size(); ++k) executors.push_back(make_function_executor(kernels[k], graph->kernels[k].op));
  auto shared = std::make_shared<GraphOps>(std::move(*graph));
  return [op, shared, executors](std::vector<Tensor*>& args) { run_graph(op, *shared, executors, args); };
}

OpExecutor TargetExecutors::make_function_executor(const LoweredFunc& func, const OpDef& op) {
  return run_through(target_behaviour(options.target).make_executor(*this, func, op));
}

OpExecutor TargetExecutors::run_through(std::shared_ptr<Executor> executor) {
  const int rounds = timed_rounds;
  std::shared_ptr<CallTimes> last = times;
  return [executor, rounds, last](std::vector<Tensor*>& args) { *last = executor->run(args, rounds); };
}

void TargetExecutors::clear_timings() {
  *times = CallTimes();
  *vdla_stats = VdlaRunStats();
  *vdla_graph_stats = VdlaGraphStats();
}

bool take_executor_time(const TargetExecutors& executors, RunResult& result, double flops) {
  if (executors.times->times_ms.empty()) return false;
  result.median_ms = executors.times->median_ms;
  result.gflops = result.median_ms > 0 ? flops / (result.median_ms * 1e6) : 0;
  return true;
}

std::string format_own_timed_result(const TargetExecutors& executors, RunResult& result, double flops, bool json) {
  take_executor_time(executors, result, flops);
  return json ? format_result_json(result) : format_result_line(result);
}

}  // namespace texc
