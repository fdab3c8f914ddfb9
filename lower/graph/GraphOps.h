// split_graph: an op partitioned into fused groups (PartitionGraph.h) as one op per group, the
// kernels, with the tensors that pass between them.
//
// Kernel N of op `op` is the op `<op>_k<N>`: its inputs are the op's inputs its stages read
// (parameter order), then the tensors of earlier kernels it reads (the order they are produced);
// its outputs are its stages that are op outputs or that a later kernel reads (stage order); its
// stages are the group's, reading those tensors as inputs. It keeps the op's own schedule blocks
// and the blocks carried from the calls whose stages it holds (so its knobs are those of its own
// layers: the blocks of other calls would schedule nothing here), the op's
// intrinsics, attributes and input domains; the other kernels' stages (and the op's own elided
// stages: those of a prepare function) are its elided_stages, so the
// lowering skips the schedule steps that name them (as for split_prepare's halves). Running the
// kernels in order, each on the tensors the earlier ones produced, computes what the op computes.
// The tensors that pass between kernels and are not op outputs are the graph's intermediates.
#pragma once
#include <string>
#include <vector>

#include "ir/Op.h"
#include "lower/graph/PartitionGraph.h"

namespace texc {

struct GraphKernel {
  OpDef op;                         // `<op>_k<N>`
  FusedGroup group;
};

struct GraphIntermediate {
  Buffer buffer;                    // as in the whole op (role Intermediate)
  size_t producer = 0;              // the kernel that writes it
  size_t last_reader = 0;           // the last kernel that reads it
};

struct GraphOps {
  std::vector<GraphKernel> kernels;
  std::vector<GraphIntermediate> intermediates;  // in the order they are produced
};

/// The name of kernel `index` of op `op`.
std::string graph_kernel_name(const std::string& op, size_t index);

GraphOps split_graph(const OpDef& op, const GraphPartition& partition);

/// Kernel `kernel` (of split_graph) with the schedule blocks a GPU target lowers it with: the op's
/// own blocks, and the blocks carried from the call of its anchor (its anchor's `schedule cuda`);
/// in a kernel without an anchor, those of the calls that made its stages. The carried blocks of
/// other calls go: those of calls in other kernels (their stages are elided here), and those of
/// the injective calls fused into the anchor as its epilogue (a relu), which compute at the
/// anchor's points in its threads. The GPU targets choose blocks per op (ir/Schedule.h
/// select_schedule_blocks drops every carried block of an op with blocks from two or more calls,
/// since one kernel has one grid), so without this a kernel would lose its anchor's schedule. The
/// CPU targets lower the kernel as split_graph made it. A tensor of an earlier kernel that the
/// anchor's blocks cache_read (dense's input X when it is a flatten's result) is no longer elided:
/// it is the kernel's input, as the anchor's schedule expects its input to be.
OpDef with_anchor_schedules(const GraphKernel& kernel);

}  // namespace texc
