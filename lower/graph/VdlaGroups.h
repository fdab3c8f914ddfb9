// runs_on_vdla: which nodes of an op's dataflow graph (lower/graph/PartitionGraph.h) are kernels of
// the VDLA accelerator when the op is compiled for --target vdla as a graph (docs/graph.md, "VDLA:
// accelerator and host"); every other group is a host kernel, compiled for the host CPU target.
//
// The rule: a node runs on VDLA when it is one call of an imported op (its stages share a
// call_site) that
//  - carries a `schedule vdla` block of its own (ScheduleBlock::origin is the call), and
//  - has an int8 contraction: a `sum` whose body is the product of two int8 loads of different
//    tensors, each cast to i32 (through padding selects): what the GEMM core computes.
// nn.int8's conv2d_int8 and dense_int8 are such calls, their requantization (a shift and a clip on
// the ALU) part of the call. Everything else — layout transforms, the op's own elementwise stages
// (ReLU, residual add), pooling, softmax, anything float — runs on the host. A VDLA node is a group
// alone (partition_graph's `alone`): nothing is fused into it, since its kernel is compiled by the
// call's own `schedule vdla`, which places that call's stages only. A call matching the rule whose
// schedule cannot be lowered for VDLA is an error located at the op, as for any VDLA op; it does
// not fall back to the host.
#pragma once
#include <vector>

#include "ir/Op.h"

namespace texc {

bool runs_on_vdla(const OpDef& op, const std::vector<const Stage*>& node);

}  // namespace texc
