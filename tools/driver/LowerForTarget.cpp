#include "tools/driver/LowerForTarget.h"

#include <iostream>

#include "lower/Lower.h"
#include "lower/SplitPrepare.h"
#include "lower/graph/GraphEntry.h"
#include "lower/graph/ScratchParameters.h"
#include "ir/Target.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/TargetPropertiesOf.h"
#include "tools/driver/TargetRegistry.h"
#include "tools/driver/KnobOptions.h"
#include "tools/driver/RecordKnobs.h"
#include "tools/driver/VdlaGraph.h"

namespace texc {

LoweredFunc lower_for_target(const OpDef& op, const CompileOptions& opts, const KnobConfig& knobs, std::vector<Remark>* remarks) {
  LowerOptions options;
  options.target = opts.target;
  options.knobs = knobs;
  options.arch = opts.arch;
  for (const auto& [name, value] : knob_options_for(opts, op)) options.knobs[name] = value;  // --knob wins
  options.no_fuse = opts.no_fuse;
  options.print_after_each = opts.print_after_each;
  options.print_changed = opts.print_changed;
  options.time_passes = opts.time_passes;
  if (opts.verify_each) options.verify = true;
  options.log = &std::cerr;
  if (is_llvm_cpu_target(opts.target)) options.cpu_features = cpu_feature_query(opts, op);  // tensorize's fallback
  options.target_properties = target_properties_of(opts);  // target.vector_bits etc. in the schedules
  options.builtin_intrinsics = builtin_intrinsics_of(opts);  // vdla.gemm of --vdla-config's block
  std::vector<Remark> found;
  if (opts.remarks) options.remarks = &found;
  LoweredFunc func = lower_op(op, options);
  for (const Remark& r : found) print_remark(std::cerr, r);
  if (remarks) *remarks = std::move(found);
  return func;
}

GraphFusion graph_fusion_of(const CompileOptions& opts) {
  return opts.no_graph_fusion ? GraphFusion::None : GraphFusion::ByKind;
}

bool splits_graphs(const std::string& target) { return pass_targets_of(target) & (kCpuPasses | kGpuPasses); }

std::optional<GraphOps> graph_of(const OpDef& op, const CompileOptions& opts) {
  if (generates_vdla_programs(opts.target)) return vdla_graph_of(op, opts);  // VDLA and host kernels
  if (!splits_graphs(opts.target)) return std::nullopt;
  GraphPartition partition = partition_graph(op, opts.target, graph_fusion_of(opts));
  if (partition.groups.size() < 2) return std::nullopt;
  return split_graph(op, partition);
}

OpDef graph_op_of(const OpDef& op) {
  std::optional<PreparedOp> split = split_prepare(op);
  return split ? split->main : op;
}

namespace {

/// `op` as one function, or as its graph's kernels and host entry.
std::vector<LoweredFunc> lower_graph_or_op(const OpDef& op, const CompileOptions& opts, const KnobConfig& knobs,
                                           std::vector<Remark>* remarks) {
  std::optional<GraphOps> graph = graph_of(op, opts);
  if (!graph) return {lower_for_target(op, opts, knobs, remarks)};
  std::vector<LoweredFunc> kernels;
  for (const GraphKernel& kernel : graph->kernels) {
    std::vector<Remark> found;
    CompileOptions kernel_opts = function_options(opts, kernel.group.alone);  // vdla: a host kernel on the host
    const OpDef lowered = is_gpu_target(kernel_opts.target) ? with_anchor_schedules(kernel) : kernel.op;
    KnobConfig kernel_knobs = kernel_knobs_from_records(kernel_opts, kernel, knobs);  // its task's record, else the op's
    kernels.push_back(lower_for_target(lowered, kernel_opts, kernel_knobs, remarks ? &found : nullptr));
    // Its heap buffers in the workspace: the entry gives them (CPU targets; nothing on the GPU).
    if (is_llvm_cpu_target(opts.target)) kernels.back() = scratch_as_parameters(kernels.back());
    if (kernel_opts.target != opts.target) kernels.back().target = kernel_opts.target;
    std::string stages;
    for (const std::string& s : kernel.group.stages) stages += (stages.empty() ? "" : ", ") + s;
    kernels.back().doc = {"Kernel " + kernel.op.name + " of op '" + op.name + "' (" + group_kind_name(kernel.group.kind) +
                          (kernel.group.anchor.empty() ? "" : ", anchor " + kernel.group.anchor) + "): stages " + stages +
                          "."};
    if (remarks) remarks->insert(remarks->end(), found.begin(), found.end());
  }
  LoweredFunc entry = make_graph_entry(op, *graph, kernels);
  if (generates_vdla_programs(opts.target)) entry.target = function_options(opts, false).target;  // calls from the host
  kernels.push_back(std::move(entry));
  return kernels;
}

/// lower_graph_or_op, after the partition's remarks (where a stage was not fused, and why) on the
/// targets that split graphs: printed first, and first in `remarks`.
std::vector<LoweredFunc> lower_main(const OpDef& op, const CompileOptions& opts, const KnobConfig& knobs,
                                    std::vector<Remark>* remarks) {
  std::vector<Remark> partition_remarks;
  if (opts.remarks && splits_graphs(opts.target))
    partition_remarks = partition_graph(op, opts.target, graph_fusion_of(opts)).remarks;
  if (opts.remarks && generates_vdla_programs(opts.target) && graph_of(op, opts))
    partition_remarks = vdla_partition(op, opts).remarks;
  for (const Remark& r : partition_remarks) print_remark(std::cerr, r);
  std::vector<LoweredFunc> funcs = lower_graph_or_op(op, opts, knobs, remarks);
  if (remarks) remarks->insert(remarks->begin(), partition_remarks.begin(), partition_remarks.end());
  return funcs;
}

}  // namespace

std::vector<LoweredFunc> lower_op_functions(const OpDef& op, const CompileOptions& opts, const KnobConfig& knobs,
                                            std::vector<Remark>* remarks) {
  std::optional<PreparedOp> split = split_prepare(op);
  if (!split) return lower_main(op, opts, knobs, remarks);
  std::vector<Remark> prepare_remarks;
  // vdla: the prepare function of a graph of VDLA and host kernels runs on the host (VdlaGraph.h).
  const bool host_prepare = generates_vdla_programs(opts.target) && graph_of(split->main, opts);
  LoweredFunc prepare = lower_for_target(split->prepare, function_options(opts, !host_prepare), knobs,
                                         remarks ? &prepare_remarks : nullptr);
  if (host_prepare) prepare.target = function_options(opts, false).target;
  std::vector<LoweredFunc> mains = lower_main(split->main, opts, knobs, remarks);
  LoweredFunc& main = mains.back();
  if (remarks) remarks->insert(remarks->begin(), prepare_remarks.begin(), prepare_remarks.end());
  std::string prepared;
  for (const std::string& name : split->prepared) prepared += (prepared.empty() ? "" : ", ") + name;
  prepare.doc = {"Computes once what op '" + op.name + "' derives from its const inputs alone (" + prepared + ").",
                 "Call it again only when those inputs change; pass its outputs to every " + op.name + " call."};
  main.doc.insert(main.doc.begin(), "Op '" + op.name + "' with its const inputs prepared: its inputs " + prepared + " are " +
                                        prepare.name + "'s outputs.");
  mains.insert(mains.begin(), std::move(prepare));
  return mains;
}

}  // namespace texc
