// check_graph_parts: `texc run`'s check of an op compiled as a graph of kernels (docs/graph.md), the
// RunOptions::check_parts of backends/interp/RunOp.h. Its parts run one by one on the target, in
// order, each on the tensors the earlier ones produced: the prepare function (an op with const
// inputs, lower/SplitPrepare.h), then every kernel `<op>_k<N>`. Each part's outputs are compared
// with the reference interpreter evaluating that part's op on the part's actual inputs (so a
// network's check costs the sum of its kernels' checks, not the whole op's reference at every
// point: the reference of a kernel reads its inputs, it does not recompute them). A part's outputs
// are checked whole when small and cheap and on a sample otherwise (CheckMode::Sampled), or whole
// (CheckMode::Full). The first failure stops the check and names the part and its stages.
#pragma once
#include <vector>

#include "backends/interp/RunOp.h"
#include "ir/Function.h"
#include "ir/Op.h"
#include "tools/driver/TargetExecutors.h"

namespace texc {

/// `op` as compiled (the elaborated op) to `funcs` (lower_op_functions) with a graph (graph_of).
/// `inputs`: one tensor per op input. `options`: the run's check options (seed, mode, limits).
PartsCheck check_graph_parts(const OpDef& op, const std::vector<LoweredFunc>& funcs, TargetExecutors& executors,
                             const std::vector<Tensor*>& inputs, const RunOptions& options);

}  // namespace texc
