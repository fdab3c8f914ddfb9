#include "tools/driver/GraphDot.h"

#include <fmt/format.h>

#include <map>

#include "ir/Diagnostics.h"
#include "lower/SplitPrepare.h"
#include "lower/graph/PartitionGraph.h"
#include "lower/graph/PlanWorkspace.h"
#include "tools/driver/GraphReport.h"
#include "tools/driver/LowerForTarget.h"

namespace texc {

namespace {

/// A DOT string literal: quotes and backslashes escaped; "\n" in `s` stays a DOT line break.
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') {
      q += "\\n";
    } else {
      if (s[i] == '"' || s[i] == '\\') q += '\\';
      q += s[i];
    }
  }
  return q + "\"";
}

std::string shape_text(const Buffer& b) {
  std::string dims;
  for (const Expr& e : b->shape) {
    int64_t extent = 0;
    is_const_int(e, &extent);
    dims += (dims.empty() ? "" : ", ") + std::to_string(extent);
  }
  return fmt::format("{}[{}]", b->dtype.str(), dims);
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// One op's cluster: its nodes and edges.
struct OpCluster {
  const std::string& op;
  std::string nodes, edges;
  std::map<std::string, std::string> producer;  // tensor name -> the node that gives it

  std::string io_node(const std::string& tensor) const { return quoted(op + "." + tensor); }

  void box(const std::string& id, const std::string& label) {
    nodes += fmt::format("    {} [shape=box, label={}];\n", quoted(id), quoted(label));
  }
  void edge(const std::string& from, const std::string& to, const Buffer& b, const std::string& extra = "") {
    edges += fmt::format("    {} -> {} [label={}];\n", from, to,
                         quoted(b->name + " " + shape_text(b) + "\n" + std::to_string(buffer_bytes(b)) + " bytes" + extra));
  }
  /// Edges into kernel `id` from the producers of `inputs`; `offsets` gives an intermediate's offset.
  void reads(const std::string& id, const std::vector<Buffer>& inputs, const std::map<std::string, int64_t>& offsets) {
    for (const Buffer& b : inputs) {
      auto it = producer.find(b->name);
      TEXC_CHECK(it != producer.end()) << "graph_dot: no producer of '" << b->name << "' read by " << id;
      auto off = offsets.find(b->name);
      edge(it->second, quoted(id), b, off == offsets.end() ? "" : fmt::format("\nworkspace offset {}", off->second));
    }
  }
};

std::string kernel_label(const std::string& name, const FusedGroup& g, double flops) {
  std::string anchor =
      g.anchor.empty() ? "no anchor" : "anchor " + g.anchor + (g.anchor_call.empty() ? "" : " (" + g.anchor_call + ")");
  return fmt::format("{}\n{}, {}\nstages: {}\n{} FLOP", name, group_kind_name(g.kind), anchor, joined(g.stages), flops);
}

std::string op_cluster(const OpDef& whole, const CompileOptions& opts) {
  OpCluster c{whole.name, "", "", {}};
  for (const Buffer& b : whole.inputs) {
    c.nodes += fmt::format("    {} [shape=plaintext, label={}];\n", c.io_node(b->name), quoted(b->name));
    c.producer[b->name] = c.io_node(b->name);
  }
  for (const Buffer& b : whole.outputs)
    c.nodes += fmt::format("    {} [shape=plaintext, label={}];\n", c.io_node(b->name), quoted(b->name));

  std::optional<PreparedOp> split = split_prepare(whole);
  if (split) {
    std::vector<std::string> stages;
    for (const Stage& s : split->prepare.stages) stages.push_back(s.name);
    c.box(split->prepare.name, fmt::format("{}\nprepare function (once per const inputs)\nstages: {}\n{} FLOP",
                                           split->prepare.name, joined(stages), count_flops(split->prepare)));
    c.reads(split->prepare.name, split->prepare.inputs, {});
    for (const Buffer& b : split->prepare.outputs) c.producer[b->name] = quoted(split->prepare.name);
  }
  const OpDef op = split ? split->main : whole;
  std::optional<GraphOps> graph = graph_of(op, opts);
  std::string title;
  if (!graph) {
    c.box(op.name, fmt::format("{}\n1 kernel ({})\n{} FLOP", op.name, one_kernel_reason(op, opts), count_flops(op)));
    c.reads(op.name, op.inputs, {});
    for (const Buffer& b : op.outputs) c.producer[b->name] = quoted(op.name);
    title = fmt::format("op {}: 1 kernel", whole.name);
  } else {
    WorkspacePlan plan = plan_workspace(*graph);
    std::map<std::string, int64_t> offsets;
    for (size_t i = 0; i < graph->intermediates.size(); ++i) offsets[graph->intermediates[i].buffer->name] = plan.offsets[i];
    for (const GraphKernel& k : graph->kernels) {
      c.box(k.op.name, kernel_label(k.op.name, k.group, count_flops(k.op)));
      c.reads(k.op.name, k.op.inputs, offsets);
      for (const Buffer& b : k.op.outputs) c.producer[b->name] = quoted(k.op.name);
    }
    title = fmt::format("op {}: {} kernels, host entry {}, workspace {} bytes", whole.name, graph->kernels.size(),
                        op.name, plan.bytes);
  }
  for (const Buffer& b : whole.outputs) {
    auto it = c.producer.find(b->name);
    TEXC_CHECK(it != c.producer.end()) << "graph_dot: no kernel writes output '" << b->name << "'";
    c.edge(it->second, c.io_node(b->name), b);
  }
  return fmt::format("  subgraph {} {{\n    label={};\n{}{}  }}\n", quoted("cluster_" + whole.name), quoted(title),
                     c.nodes, c.edges);
}

}  // namespace

std::string graph_dot(const std::vector<const OpDef*>& ops, const CompileOptions& opts) {
  std::string out = "digraph texc {\n  node [fontname=\"monospace\"];\n  edge [fontname=\"monospace\"];\n";
  for (const OpDef* op : ops) out += op_cluster(*op, opts);
  return out + "}\n";
}

}  // namespace texc
