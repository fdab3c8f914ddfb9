#include "tools/driver/VdlaGraph.h"

#include <fmt/format.h>

#include "ir/Target.h"
#include "lower/graph/PartitionGraph.h"
#include "lower/graph/PlanWorkspace.h"
#include "lower/graph/VdlaGroups.h"
#include "tools/driver/LowerForTarget.h"

namespace texc {

GraphPartition vdla_partition(const OpDef& op, const CompileOptions& opts) {
  return partition_graph(op, opts.target, graph_fusion_of(opts), runs_on_vdla);
}

std::optional<GraphOps> vdla_graph_of(const OpDef& op, const CompileOptions& opts) {
  GraphPartition partition = vdla_partition(op, opts);
  if (partition.groups.size() < 2) return std::nullopt;
  bool any_on_vdla = false;
  for (const FusedGroup& g : partition.groups) any_on_vdla = any_on_vdla || g.alone;
  if (!any_on_vdla) return std::nullopt;
  return split_graph(op, partition);
}

CompileOptions function_options(const CompileOptions& opts, bool on_vdla) {
  if (on_vdla || !generates_vdla_programs(opts.target)) return opts;
  CompileOptions host = opts;
  host.target = host_target();
  return host;
}

std::string vdla_placement_text(const GraphKernel& kernel, const std::string& host) {
  if (!kernel.group.alone) return fmt::format("    runs on: host CPU ({}), its schedule cpu\n", host);
  std::string in, out;
  for (const Buffer& b : kernel.op.inputs) in += fmt::format("{}{} ({} bytes)", in.empty() ? "" : ", ", b->name, buffer_bytes(b));
  for (const Buffer& b : kernel.op.outputs)
    out += fmt::format("{}{} ({} bytes)", out.empty() ? "" : ", ", b->name, buffer_bytes(b));
  return fmt::format("    runs on: VDLA, its schedule vdla (program {}.vdla)\n"
                     "    copies before: {}: host memory -> VDLA DRAM\n"
                     "    copies after:  {}: VDLA DRAM -> host memory\n",
                     kernel.op.name, in, out);
}

}  // namespace texc
