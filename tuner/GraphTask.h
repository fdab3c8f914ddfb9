// graph_tasks: the tuning tasks of an op compiled as a graph of kernels (lower/graph/GraphOps.h,
// docs/graph.md; docs/tuning.md "Tuning a network"), as TVM extracts them from a network.
//
// A kernel's task is its anchor layer as a workload: the op its anchor call came from
// (FusedGroup::anchor_call), the dtypes and shapes of that call's inputs (in the order the call's
// stages first read them) and of its results (the call's stages no other of its stages reads), and
// a digest of the call's stages with their tensors renamed in that order, so that two calls of one
// op whose attributes differ but give the same shapes (a stride, a dilation) are two tasks while
// the same layer in two networks, whatever its tensors are called, is one:
//   conv2d_blocked(f32[1, 8, 8, 8], f32[16, 8, 3, 3]) -> f32[1, 16, 8, 8] #5d0c9a1e
// The target is the records' own field. The epilogue a kernel fuses (bias, ReLU, residual add) is
// not part of the task: the anchor's schedule, and so its knobs, are the same with any epilogue.
// A kernel whose anchor is none of the op's calls (an injective group, or a reduction the op wrote
// itself) is a task of its own, named by the kernel: `kernel small_cnn_k3 ...`.
//
// The guarantee: every kernel is in exactly one task; kernels with equal keys share a task, listed
// in kernel order; a task's flops are its first kernel's (ir::count_flops), the share of the
// tuning budget it gets.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "ir/Op.h"
#include "lower/graph/GraphOps.h"

namespace texc {

struct GraphTask {
  std::string key;              // as above
  std::vector<size_t> kernels;  // the graph's kernels of this task, in order
  double flops = 0;             // of one of its kernels
};

/// The task key of one kernel of a graph.
std::string graph_task_key(const GraphKernel& kernel);

/// The graph's tasks, in the order of their first kernels.
std::vector<GraphTask> graph_tasks(const GraphOps& graph);

}  // namespace texc
