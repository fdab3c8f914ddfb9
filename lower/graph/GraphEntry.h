// make_graph_entry: the host function `<op>(inputs..., outputs...)` of an op compiled as a graph of
// kernels (GraphOps.h): it allocates the graph's intermediates and calls the kernels `<op>_k<N>` in
// order, each on its inputs then its outputs, then its scratch arguments when it has some
// (ScratchParameters.h), as C calls (Call Extern of the kernel's symbol with the address of each
// buffer's first element). Its arguments are the op's, flattened as every
// lowered function's are, with their logical shapes in arg_dims: the C signature and header entry
// are the ones the op had as one kernel. The intermediates live in one workspace arena, a u8
// buffer allocated around the calls (LLVM: on the stack when small, else texrt_alloc), each at its
// offset of plan_workspace (PlanWorkspace.h: placed by liveness, with reuse), and so do the
// kernels' scratch regions, each kernel's scratch arguments at their kernel_scratch_offsets in its
// region (ir/KernelScratch.h); workspace_bytes is the arena's size. The backends also compile it as `<op>_with_workspace`, the arena a caller's
// (ir/CallerWorkspace.h).
#pragma once
#include <vector>

#include "ir/Function.h"
#include "ir/Op.h"
#include "lower/graph/GraphOps.h"

namespace texc {

/// `kernels` are the lowered kernels of `graph`, in its order.
LoweredFunc make_graph_entry(const OpDef& op, const GraphOps& graph, const std::vector<LoweredFunc>& kernels);

}  // namespace texc
