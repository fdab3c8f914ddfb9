// graph_dot: `--emit graph-dot` (docs/cli.md, docs/graph.md), the fused graph of a module's ops as
// one Graphviz digraph, one cluster per op:
//  - each kernel is a box (id its function name, `<op>_k<N>`) labelled with its name, group kind,
//    anchor stage (and the op it came from), stages and FLOPs; an op compiled to one kernel is one
//    box, its label saying why (GraphReport.h); a prepare function (lower/SplitPrepare.h) is a box too;
//  - the op's inputs and outputs are plain nodes (id `<op>.<tensor>`, shape plaintext);
//  - each tensor a kernel reads is an edge from its producer (an input node, the prepare function or
//    an earlier kernel) to that kernel, and each op output an edge from the kernel that writes it to
//    its node; an edge's label is the tensor's name, dtype and shape and its bytes, and, for an
//    intermediate, its offset in the workspace arena (lower/graph/PlanWorkspace.h).
// The same partition and plan as `--emit graph`: the two outputs describe one graph.
#pragma once
#include <string>
#include <vector>

#include "ir/Op.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// The digraph of `ops` (as elaborated for the target) compiled with `opts`.
std::string graph_dot(const std::vector<const OpDef*>& ops, const CompileOptions& opts);

}  // namespace texc
