// graph_report: `--emit graph` (docs/cli.md, docs/graph.md), the text that says how each op of a
// module was partitioned into fused kernels: per kernel its name, group kind, anchor stage (and the
// op it came from), stages, the tensors it reads and writes, its FLOPs (ir::count_flops of the
// kernel's op) and its tuning task (tuner/GraphTask.h); then the intermediates between kernels with their sizes, workspace offsets,
// producer and last reader, and the workspace's size next to the liveness lower bound and the
// bytes without reuse (lower/graph/PlanWorkspace.h); with the op's lowered functions, also each
// kernel's scratch arguments (lower/graph/ScratchParameters.h) and where the plan puts them. An op that compiles to one kernel says why (one group; the target keeps one
// kernel per op; its own schedule relates stages of two groups).
#pragma once
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/Op.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// Why `op` (as graph_op_of gives it) compiles to one kernel on opts.target, when graph_of is nullopt:
/// "one fused group", the partition's single_reason, or the target's rule.
std::string one_kernel_reason(const OpDef& op, const CompileOptions& opts);

/// The report of one op (as elaborated for the target) compiled with `opts` to `functions`
/// (lower_op_functions; empty: the kernels' scratch is not known, and not reported).
std::string graph_report(const OpDef& op, const CompileOptions& opts, const std::vector<LoweredFunc>& functions = {});

}  // namespace texc
