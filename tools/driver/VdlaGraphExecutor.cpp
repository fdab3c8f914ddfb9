#include "tools/driver/VdlaGraphExecutor.h"

#include <chrono>
#include <filesystem>

#include "backends/execute/Isolate.h"
#include "backends/execute/JitExecutor.h"
#include "ir/Diagnostics.h"
#include "lower/graph/PlanWorkspace.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/GraphExecutor.h"
#include "tools/driver/LowerForTarget.h"
#include "tools/driver/TargetRegistry.h"
#include "tools/driver/VdlaExecutor.h"
#include "tools/driver/VdlaGraph.h"

namespace texc {

namespace {

/// t.json -> t.<kernel>.json: each VDLA kernel's own timeline.
std::string kernel_trace_path(const std::string& path, const std::string& kernel) {
  if (path.empty()) return "";
  std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + "." + kernel + p.extension().string())).string();
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::shared_ptr<Executor> make_vdla_host_executor(TargetExecutors& executors, const LoweredFunc& func) {
  TEXC_CHECK(!func.target.empty()) << "function '" << func.name << "' is not a host function of a VDLA graph";
  if (!executors.cpu) executors.cpu = cpu_target_options(function_options(executors.options, false));
  return isolate(make_jit_executor({func}, *executors.cpu, executors.externs.jit_symbols(func)),
                 "the compiled host kernel '" + func.name + "'", count_inputs(func));
}

namespace {

/// The graph run kernel by kernel (run_graph), its statistics in *stats; the run's times are the
/// kernels' (format_vdla_result reads them from the statistics), so none of its own.
class VdlaGraphExecutor : public Executor {
 public:
  VdlaGraphExecutor(OpDef op, std::shared_ptr<GraphOps> graph, std::vector<OpExecutor> kernels,
                    std::shared_ptr<VdlaGraphStats> stats, std::string host)
      : op_(std::move(op)), graph_(std::move(graph)), kernels_(std::move(kernels)), stats_(std::move(stats)),
        host_(std::move(host)) {}

  CallTimes run(std::vector<Tensor*>& args, int) override {
    stats_->kernels.clear();
    stats_->host = host_;
    run_graph(op_, *graph_, kernels_, args);
    stats_->ran = true;
    return {};
  }

 private:
  OpDef op_;
  std::shared_ptr<GraphOps> graph_;
  std::vector<OpExecutor> kernels_;
  std::shared_ptr<VdlaGraphStats> stats_;
  std::string host_;
};

}  // namespace

std::shared_ptr<Executor> make_vdla_graph_executor(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs,
                                                   const OpDef& op) {
  std::optional<GraphOps> graph = graph_of(op, executors.options);
  TEXC_CHECK(graph && graph->kernels.size() + 1 == funcs.size())
      << "op '" << op.name << "' compiled to " << funcs.size() << " functions, but is no graph of as many kernels";
  auto shared = std::make_shared<GraphOps>(std::move(*graph));
  std::shared_ptr<VdlaGraphStats> stats = executors.vdla_graph_stats;
  const std::string host = function_options(executors.options, false).target;
  // A host kernel's timed rounds after its checked call: as many as `texc run --target HOST` times.
  const int host_rounds = target_behaviour(host).run_repeat;
  std::vector<OpExecutor> kernels;
  for (size_t k = 0; k < shared->kernels.size(); ++k) {
    const GraphKernel& kernel = shared->kernels[k];
    const LoweredFunc& func = funcs[k];
    TEXC_CHECK(kernel.group.alone == func.target.empty())
        << "kernel " << func.name << " was lowered for " << (func.target.empty() ? "vdla" : func.target);
    std::string name = func.name;
    if (kernel.group.alone) {
      auto sim = std::make_shared<VdlaRunStats>();
      std::string trace = kernel_trace_path(executors.trace_path, func.name);
      std::shared_ptr<Executor> run =
          make_vdla_executor(func, *executors.vdla_config, op.loc, keep_vdla_run(sim, trace), !trace.empty());
      int64_t in = 0, out = 0;
      for (const Buffer& b : kernel.op.inputs) in += buffer_bytes(b);
      for (const Buffer& b : kernel.op.outputs) out += buffer_bytes(b);
      kernels.push_back([run, sim, stats, name, in, out](std::vector<Tensor*>& args) {
        auto start = std::chrono::steady_clock::now();
        run->run(args, 0);  // copies the inputs into VDLA DRAM, simulates, copies the outputs back
        VdlaGraphKernelRun r;
        r.name = name;
        r.on_vdla = true;
        r.sim = sim->result;
        r.simulator_ms = ms_since(start);
        r.bytes_to_vdla = in;
        r.bytes_from_vdla = out;
        stats->kernels.push_back(std::move(r));
      });
    } else {
      std::shared_ptr<Executor> run = make_vdla_host_executor(executors, func);
      kernels.push_back([run, stats, name, host_rounds](std::vector<Tensor*>& args) {
        auto start = std::chrono::steady_clock::now();
        CallTimes times = run->run(args, host_rounds);
        VdlaGraphKernelRun r;
        r.name = name;
        r.host_timed = !times.times_ms.empty();
        r.host_ms = r.host_timed ? times.median_ms : ms_since(start);
        stats->kernels.push_back(std::move(r));
      });
    }
  }
  return std::make_shared<VdlaGraphExecutor>(op, shared, std::move(kernels), stats, host);
}

}  // namespace texc
