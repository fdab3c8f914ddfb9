// make_vdla_graph_executor: `texc run --target vdla` of an op compiled as a graph of VDLA and host
// kernels (tools/driver/VdlaGraph.h): the kernels run one by one in the graph's order on tensors
// in host memory (run_graph, GraphExecutor.h). A VDLA kernel's inputs are copied into a fresh VDLA
// DRAM image, its program is simulated, its outputs are copied back (VdlaExecutor.h); a host kernel
// is JIT-compiled for the host CPU and run in a child process that times its calls, as `texc run
// --target x86` runs an op (JitExecutor.h). Each run leaves the kernels' cycles, host times and
// copied bytes in executors.vdla_graph_stats. With --trace t.json, each VDLA kernel's timeline is
// written to t.<kernel>.json.
#pragma once
#include <memory>
#include <vector>

#include "backends/execute/Executor.h"
#include "backends/interp/RunOp.h"
#include "ir/Function.h"
#include "ir/Op.h"
#include "tools/driver/TargetExecutors.h"

namespace texc {

/// vdla's make_graph_executor (TargetRegistry.h): `funcs` are the kernels then the host entry.
std::shared_ptr<Executor> make_vdla_graph_executor(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs,
                                                   const OpDef& op);

/// A host function of such a graph (LoweredFunc::target set: a host kernel, the prepare function)
/// JIT-compiled for the host CPU and run in a child process (Isolate.h), as x86 runs an op.
std::shared_ptr<Executor> make_vdla_host_executor(TargetExecutors& executors, const LoweredFunc& func);

}  // namespace texc
