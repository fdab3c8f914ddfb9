// run_graph: an op compiled as a graph of kernels (docs/graph.md) executed kernel by kernel on
// tensors: the graph's intermediates are tensors of run_graph's own, each kernel runs on its inputs
// then its outputs with its own executor, and `after_kernel` (when given) sees each kernel's
// arguments right after it ran: `texc run` checks every kernel there against the reference
// interpreter on that kernel's actual inputs (RunCommand.cpp). The interp target executes a graph
// this way; x86 and arm call the compiled host entry `<op>` instead (TargetExecutors.h), which runs
// the same kernels in the same order.
#pragma once
#include <functional>
#include <vector>

#include "backends/interp/RunOp.h"
#include "lower/graph/GraphOps.h"

namespace texc {

/// `kernels`: one executor per kernel of `graph`; `args`: the op's inputs then outputs.
void run_graph(const OpDef& op, const GraphOps& graph, const std::vector<OpExecutor>& kernels,
               std::vector<Tensor*>& args,
               const std::function<void(size_t kernel, std::vector<Tensor*>& kernel_args)>& after_kernel = {});

}  // namespace texc
