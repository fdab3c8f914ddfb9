// partition_graph: an op's stages as a dataflow graph, partitioned into fused groups by kind (TVM's
// FuseOps rules, docs/graph.md). Each group is later compiled as one kernel (lower/graph/GraphOps.h).
//
// Nodes: the stages of one call of an imported op form one node (a call is never split: the
// stdlib op keeps its own schedule); each of the op's own stages is a node of its own. A node's kind
// is that of its stages (the strongest):
//  - complex-out-fusible: some stage is a contraction, a `sum` whose body multiplies two loads of
//    different tensors (conv2d, dense, matmul, depthwise, int8 conv: casts around the loads allowed);
//  - reduction: some other stage reduces (softmax, pooling, norms);
//  - opaque: some stage calls an extern function;
//  - injective: every stage is elementwise, broadcast or a layout transform (no reduction).
// Groups are formed in the stages' topological order:
//  - an injective node joins the group of its latest producer node (read directly) when that group
//    is not opaque and joining keeps the groups acyclic (residual add: the block's input is read as
//    a kernel input); on a GPU target (cuda, cuda-interp) also only when it reads that group's
//    tensors at its own point (indices = its axes: an epilogue, not a flatten), since it runs in
//    the anchor's threads on the points they produced; with no producer, or none it may join, it
//    starts a group of its own;
//  - a complex-out-fusible or reduction node starts a group (its anchor) and absorbs each producer
//    group that is purely injective (no anchor) and whose tensors are read by no other group (not
//    on a GPU target: there the anchor's `schedule cuda` names the loops of its inputs' copies as
//    it names them for inputs in memory, so such a producer is a kernel of its own);
//  - an opaque node is a group alone;
//  - the op's own reduction stage (no call) whose latest producer group is a reduction group joins
//    it, as an injective node would (a softmax or norm written out by hand is one layer).
// A graph is an op that calls imported layers: when no call of the op has a reducing stage (every
// anchor is the op's own), the op is one group as before (`single_reason` says so).
// The guarantee: the groups cover every stage once; the group graph (group A -> B when a stage of
// B reads a stage of A) is acyclic and the groups are listed in a topological order; each group's
// stages keep the op's stage order; a group has at most one complex-out-fusible node.
// An op's own schedule (its blocks for `target` that came from no call) that relates stages of two
// groups (compute_at, or any primitive naming both) keeps the op one group, `single_reason` says
// why.
// Remarks (ir/Remark.h, `--remarks`) say where an elementwise stage was not fused into a
// neighbour's kernel and why, at the stage: an injective node that could not join its latest
// producer group (that group is opaque, or joining would close a cycle), or an injective producer
// group an anchor did not absorb (another group reads it too, or absorbing would close a cycle);
// each says which kernel the stage runs in. An op kept one kernel by its own schedule has one
// remark instead, at the primitive relating two groups; an op that is one kernel for another
// reason (one group, no imported reducing op) has none.
// With `alone` (a target that runs some calls on an accelerator: VDLA, lower/graph/VdlaGroups.h),
// a node for which it holds is a group by itself, marked `alone`: no injective node joins it and it
// absorbs no producer, so its kernel holds that call's stages only; the other rules are unchanged
// among the other nodes. An injective node whose latest producer is such a group gets the remark
// that says so.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/Op.h"
#include "ir/Remark.h"

namespace texc {

enum class GroupKind { Injective, Reduction, ComplexOut, Opaque };
const char* group_kind_name(GroupKind kind);

struct FusedGroup {
  std::vector<std::string> stages;  // in the op's stage order
  std::string anchor;               // the anchor node's first stage ("" for an injective group)
  std::string anchor_call;          // the op the anchor came from (Stage::origin_call, "" for own stages)
  GroupKind kind = GroupKind::Injective;
  bool alone = false;               // a node kept alone by partition_graph's `alone` (a VDLA kernel)
};

struct GraphPartition {
  std::vector<FusedGroup> groups;   // in a topological order
  std::string single_reason;        // why the op stays one group although it would split ("" if not)
  std::vector<Remark> remarks;      // where a stage was not fused, and why (above), in stage order
};

/// The kind of one stage by itself (the node rules above).
GroupKind stage_kind(const Stage& stage);

/// How nodes are grouped: by the rules above, or not at all (`--no-graph-fusion`: every node a
/// group of its own, as TVM's FuseOps at opt level 0; the same layers as separate kernels, for
/// measuring what fusion wins). The single-kernel rules (no imported reducing op, an own schedule
/// relating two groups) apply to both.
enum class GraphFusion { ByKind, None };

/// Whether a node (the stages of one call, or one own stage) must be a group alone (above).
using AloneNode = std::function<bool(const OpDef& op, const std::vector<const Stage*>& node)>;

/// Partitions `op`'s stages; `target` selects the op's own schedule blocks checked for stages of
/// two groups.
GraphPartition partition_graph(const OpDef& op, const std::string& target, GraphFusion fusion = GraphFusion::ByKind,
                               const AloneNode& alone = {});

}  // namespace texc
