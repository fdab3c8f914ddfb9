#include "tools/driver/GraphReport.h"

#include <fmt/format.h>

#include "ir/Diagnostics.h"
#include "lower/Lower.h"
#include "lower/SplitPrepare.h"
#include "lower/graph/PartitionGraph.h"
#include "ir/KernelScratch.h"
#include "lower/graph/PlanWorkspace.h"
#include "tools/driver/LowerForTarget.h"
#include "tools/driver/VdlaGraph.h"
#include "ir/Target.h"
#include "tuner/GraphTask.h"

namespace texc {

namespace {

std::string tensor(const Buffer& b) {
  std::string dims;
  for (const Expr& e : b->shape) {
    int64_t extent = 0;
    is_const_int(e, &extent);
    dims += (dims.empty() ? "" : ", ") + std::to_string(extent);
  }
  return fmt::format("{} {}[{}]", b->name, b->dtype.str(), dims);
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string anchor_text(const FusedGroup& g) {
  if (g.anchor.empty()) return "no anchor";
  return "anchor " + g.anchor + (g.anchor_call.empty() ? "" : " (" + g.anchor_call + ")");
}

}  // namespace

std::string one_kernel_reason(const OpDef& op, const CompileOptions& opts) {
  GraphPartition partition = partition_graph(op, opts.target, graph_fusion_of(opts));
  if (partition.groups.size() == 1 && partition.single_reason.empty()) return "one fused group";
  if (!partition.single_reason.empty()) return partition.single_reason;
  if (generates_vdla_programs(opts.target))
    return fmt::format("{} groups, none of which VDLA runs (a call of an int8 conv or dense with a schedule vdla, "
                       "docs/graph.md): the op is one VDLA kernel", partition.groups.size());
  return fmt::format("{} groups, but target '{}' keeps one kernel per op (the graph split applies to x86, arm, "
                     "interp, cuda and cuda-interp)", partition.groups.size(), opts.target);
}

std::string graph_report(const OpDef& whole, const CompileOptions& opts, const std::vector<LoweredFunc>& functions) {
  std::string out;
  std::optional<PreparedOp> split = split_prepare(whole);
  if (split) {
    std::vector<std::string> stages;
    for (const Stage& s : split->prepare.stages) stages.push_back(s.name);
    out += fmt::format("op {}: prepare function {} (once per const inputs): stages {}\n", whole.name,
                       split->prepare.name, joined(stages));
    if (generates_vdla_programs(opts.target) && graph_of(split->main, opts))
      out += fmt::format("  runs on: host CPU ({})\n", function_options(opts, false).target);
  }
  const OpDef op = split ? split->main : whole;
  std::optional<GraphOps> graph = graph_of(op, opts);
  if (!graph) {
    GraphPartition partition = partition_graph(op, opts.target, graph_fusion_of(opts));
    out += fmt::format("op {}: 1 kernel ({}), {} FLOP\n", op.name, one_kernel_reason(op, opts), count_flops(op));
    if (partition.groups.size() > 1)
      for (size_t k = 0; k < partition.groups.size(); ++k)
        out += fmt::format("  group {}: {}, {}: stages {}\n", k, group_kind_name(partition.groups[k].kind),
                           anchor_text(partition.groups[k]), joined(partition.groups[k].stages));
    return out;
  }
  out += fmt::format("op {}: {} kernels, host entry {}\n", op.name, graph->kernels.size(), op.name);
  if (generates_vdla_programs(opts.target)) {
    std::vector<std::string> on_vdla, on_host;
    for (const GraphKernel& k : graph->kernels) (k.group.alone ? on_vdla : on_host).push_back(k.op.name);
    out += fmt::format("  on VDLA: {}; on the host CPU ({}): {} (texc run runs them one by one)\n", joined(on_vdla),
                       function_options(opts, false).target, joined(on_host));
  }
  // Each kernel's scratch arguments (its heap buffers, given by the entry), when lowered.
  std::vector<int64_t> scratch_bytes(graph->kernels.size(), 0);
  std::vector<std::string> scratch_of(graph->kernels.size());
  for (size_t k = 0; k < graph->kernels.size(); ++k)
    for (const LoweredFunc& f : functions)
      if (f.name == graph->kernels[k].op.name) {
        scratch_bytes[k] = kernel_scratch_bytes(f);
        std::vector<std::string> names;
        for (const Buffer& b : f.args)
          if (is_scratch_arg(b)) names.push_back(tensor(b));
        scratch_of[k] = joined(names);
      }
  WorkspacePlan plan = plan_workspace(*graph, scratch_bytes);
  for (size_t i = 0; i < graph->kernels.size(); ++i) {
    const GraphKernel& k = graph->kernels[i];
    std::vector<std::string> reads, writes;
    for (const Buffer& b : k.op.inputs) reads.push_back(tensor(b));
    for (const Buffer& b : k.op.outputs) writes.push_back(tensor(b));
    out += fmt::format("  kernel {}: {}, {}, {} FLOP\n", k.op.name, group_kind_name(k.group.kind), anchor_text(k.group),
                       count_flops(k.op));
    out += "    stages: " + joined(k.group.stages) + "\n";
    out += "    reads:  " + joined(reads) + "\n";
    out += "    writes: " + joined(writes) + "\n";
    if (generates_vdla_programs(opts.target)) out += vdla_placement_text(k, function_options(opts, false).target);
    if (scratch_bytes[i] > 0)
      out += fmt::format("    scratch: {}: {} bytes at workspace offset {}\n", scratch_of[i], scratch_bytes[i],
                         plan.scratch_offsets[i]);
    out += "    task:   " + graph_task_key(k) + "\n";  // its tuning task (texc tune, --records)
  }
  out += fmt::format("  intermediates: {}\n", graph->intermediates.size());
  for (size_t i = 0; i < graph->intermediates.size(); ++i) {
    const GraphIntermediate& t = graph->intermediates[i];
    out += fmt::format("    {}: {} bytes at workspace offset {}, written by {}, last read by {}\n", tensor(t.buffer),
                       buffer_bytes(t.buffer), plan.offsets[i], graph->kernels[t.producer].op.name,
                       graph->kernels[t.last_reader].op.name);
  }
  out += fmt::format("  workspace: {} bytes (liveness lower bound {} bytes; {} bytes without reuse)\n", plan.bytes,
                     plan.lower_bound, plan.unshared);
  return out;
}

}  // namespace texc
