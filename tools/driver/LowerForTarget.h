// lower_for_target: the one place where the library calls the lowering (lower/Lower.h), with the
// compile options (CompileOptions.h: target, arch, knobs, no_fuse, print_after_each, print_changed,
// time_passes, verify_each, remarks). compile() (Module.h) and every command (compile, run, tune)
// lower through it.
#pragma once
#include "ir/Function.h"
#include "ir/Op.h"
#include "ir/Remark.h"
#include "ir/Schedule.h"
#include "lower/graph/GraphOps.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// Lowers `op` for opts.target with the knob configuration `knobs` (empty: every knob's first value),
/// overridden by the --knob values of the knobs `op` declares.
/// Throws UserError for a schedule mistake.
/// With --remarks, the lowering's remarks are printed on stderr and, when `remarks` is given,
/// also returned there (run --json lists them).
LoweredFunc lower_for_target(const OpDef& op, const CompileOptions& opts, const KnobConfig& knobs = {},
                             std::vector<Remark>* remarks = nullptr);

/// Whether ops compile as graphs of fused kernels on `target`: the CPU targets (x86, arm, interp)
/// and the GPU targets (cuda, cuda-interp); vdla keeps one kernel per op for now.
bool splits_graphs(const std::string& target);
/// The op (or the main half of an op with a prepare function) as a graph of fused kernels
/// (lower/graph/, docs/graph.md) on opts.target, or nullopt when it compiles to one kernel: its
/// partition has one group, or the target does not split graphs (splits_graphs). On vdla, the
/// graph of VDLA and host kernels of VdlaGraph.h.
std::optional<GraphOps> graph_of(const OpDef& op, const CompileOptions& opts);
/// How graph_of groups an op's layers: by kind, or none with --no-graph-fusion.
GraphFusion graph_fusion_of(const CompileOptions& opts);
/// The op that graph_of partitions: `op`, or its main half when it has a prepare function.
OpDef graph_op_of(const OpDef& op);

/// An op as the functions it compiles to: one, or, for an op whose `const` inputs feed stages of
/// their own (lower/SplitPrepare.h), `<op>_prepare` then `<op>`, each with the header comment that
/// says how they are called. Both halves lower with the same knobs. An op that graph_of splits
/// compiles its (main) part to the kernels `<op>_k0`, `<op>_k1`, ... then the host entry `<op>`
/// (lower/graph/GraphEntry.h), each kernel with the knobs of its tuning task's best record in
/// --records (RecordKnobs.h: kernel_knobs_from_records), else with `knobs`; on x86 and arm each
/// kernel's heap buffers are scratch arguments the entry passes in its workspace
/// (lower/graph/ScratchParameters.h).
std::vector<LoweredFunc> lower_op_functions(const OpDef& op, const CompileOptions& opts, const KnobConfig& knobs = {},
                                            std::vector<Remark>* remarks = nullptr);

}  // namespace texc
