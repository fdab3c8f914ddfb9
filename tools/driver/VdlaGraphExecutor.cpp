#include "tools/driver/VdlaGraphExecutor.h"

#include <chrono>
#include <filesystem>

#include "ir/Diagnostics.h"
#include "lower/graph/PlanWorkspace.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/GraphExecutor.h"
#include "tools/driver/LowerForTarget.h"
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

OpExecutor make_vdla_host_executor(TargetExecutors& executors, const LoweredFunc& func, int repeat,
                                   std::shared_ptr<JitTiming> timing) {
  TEXC_CHECK(!func.target.empty()) << "function '" << func.name << "' is not a host function of a VDLA graph";
  if (!executors.cpu) executors.cpu = cpu_target_options(function_options(executors.options, false));
  return make_jit_executor({func}, *executors.cpu, executors.externs.jit_symbols(func), repeat, std::move(timing));
}

OpExecutor make_vdla_graph_executor(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs, const OpDef& op) {
  std::optional<GraphOps> graph = graph_of(op, executors.options);
  TEXC_CHECK(graph && graph->kernels.size() + 1 == funcs.size())
      << "op '" << op.name << "' compiled to " << funcs.size() << " functions, but is no graph of as many kernels";
  auto shared = std::make_shared<GraphOps>(std::move(*graph));
  std::shared_ptr<VdlaGraphStats> stats = executors.vdla_graph_stats;
  const std::string host = function_options(executors.options, false).target;
  std::vector<OpExecutor> kernels;
  for (size_t k = 0; k < shared->kernels.size(); ++k) {
    const GraphKernel& kernel = shared->kernels[k];
    const LoweredFunc& func = funcs[k];
    TEXC_CHECK(kernel.group.alone == func.target.empty())
        << "kernel " << func.name << " was lowered for " << (func.target.empty() ? "vdla" : func.target);
    if (kernel.group.alone) {
      auto sim = std::make_shared<VdlaRunStats>();
      OpExecutor run = make_vdla_executor(func, *executors.vdla_config, op.loc, sim,
                                          kernel_trace_path(executors.trace_path, func.name));
      int64_t in = 0, out = 0;
      for (const Buffer& b : kernel.op.inputs) in += buffer_bytes(b);
      for (const Buffer& b : kernel.op.outputs) out += buffer_bytes(b);
      std::string name = func.name;
      kernels.push_back([run, sim, stats, name, in, out](std::vector<Tensor*>& args) {
        auto start = std::chrono::steady_clock::now();
        run(args);  // copies the inputs into VDLA DRAM, simulates, copies the outputs back
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
      auto timing = std::make_shared<JitTiming>();
      OpExecutor run = make_vdla_host_executor(executors, func, executors.jit_repeat, timing);
      std::string name = func.name;
      kernels.push_back([run, timing, stats, name](std::vector<Tensor*>& args) {
        *timing = JitTiming();
        auto start = std::chrono::steady_clock::now();
        run(args);
        VdlaGraphKernelRun r;
        r.name = name;
        r.host_timed = !timing->times_ms.empty();
        r.host_ms = r.host_timed ? timing->median_ms : ms_since(start);
        stats->kernels.push_back(std::move(r));
      });
    }
  }
  return [op, shared, kernels, stats, host](std::vector<Tensor*>& args) {
    stats->kernels.clear();
    stats->host = host;
    run_graph(op, *shared, kernels, args);
    stats->ran = true;
  };
}

}  // namespace texc
