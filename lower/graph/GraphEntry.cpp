#include "lower/graph/GraphEntry.h"

#include <map>

#include "ir/Diagnostics.h"
#include "ir/Intrinsics.h"
#include "ir/KernelScratch.h"
#include "lower/graph/PlanWorkspace.h"

namespace texc {

namespace {

std::vector<int64_t> dims_of(const Buffer& b) {
  std::vector<int64_t> dims;
  for (const Expr& e : b->shape) {
    int64_t extent = 0;
    TEXC_CHECK(is_const_int(e, &extent)) << "buffer '" << b->name << "' of a graph has a non-constant shape";
    dims.push_back(extent);
  }
  return dims;
}

/// `b` flattened: one dimension of all its elements.
Buffer flat(const Buffer& b, BufferRole role) {
  int64_t count = 1;
  for (int64_t d : dims_of(b)) count *= d;
  return BufferNode::make(b->name, b->dtype, {make_int(count)}, b->scope, role);
}

}  // namespace

LoweredFunc make_graph_entry(const OpDef& op, const GraphOps& graph, const std::vector<LoweredFunc>& kernels) {
  TEXC_CHECK(kernels.size() == graph.kernels.size()) << "graph of op '" << op.name << "': " << kernels.size()
                                                     << " lowered kernels for " << graph.kernels.size();
  LoweredFunc entry;
  entry.name = op.name;
  entry.attributes = op.attributes;
  std::map<std::string, Buffer> by_name;
  for (const Buffer& b : op.inputs) {
    entry.args.push_back(flat(b, BufferRole::Input));
    entry.arg_dims.push_back(dims_of(b));
    by_name[b->name] = entry.args.back();
  }
  for (const Buffer& b : op.outputs) {
    entry.args.push_back(flat(b, BufferRole::Output));
    entry.arg_dims.push_back(dims_of(b));
    by_name[b->name] = entry.args.back();
  }
  // The intermediates and the kernels' scratch in one arena, placed by liveness (PlanWorkspace.h).
  std::vector<int64_t> scratch_bytes;
  for (const LoweredFunc& k : kernels) scratch_bytes.push_back(kernel_scratch_bytes(k));
  WorkspacePlan plan = plan_workspace(graph, scratch_bytes);
  Buffer arena;
  if (plan.bytes > 0) arena = BufferNode::make("workspace", UInt(8), {make_int(plan.bytes)}, MemScope::Global);
  std::map<std::string, int64_t> offset_of;
  for (size_t i = 0; i < graph.intermediates.size(); ++i) offset_of[graph.intermediates[i].buffer->name] = plan.offsets[i];
  std::vector<Stmt> calls;
  for (size_t k = 0; k < graph.kernels.size(); ++k) {
    const OpDef& sub = graph.kernels[k].op;
    std::vector<Expr> args;
    auto address = [&](const Expr& first) { args.push_back(make_intrinsic_call(Intrinsic::AddressOf, Int(64), {first})); };
    auto pass = [&](const Buffer& b) {
      address(offset_of.count(b->name) ? Load::make(arena, {make_int(offset_of.at(b->name))})
                                       : Load::make(by_name.at(b->name), {make_int(0)}));
    };
    for (const Buffer& b : sub.inputs) pass(b);
    for (const Buffer& b : sub.outputs) pass(b);
    // Its scratch arguments (ScratchParameters.h): its region of the arena, each at its offset.
    std::vector<int64_t> scratch_offsets = kernel_scratch_offsets(kernels[k]);
    for (int64_t offset : scratch_offsets)
      if (offset >= 0) address(Load::make(arena, {make_int(plan.scratch_offsets[k] + offset)}));
    calls.push_back(Evaluate::make(Call::make(Int(32), kernels[k].name, args, CallKind::Extern)));
  }
  Stmt body = Seq::make(calls);
  if (arena) body = Allocate::make(arena, body);
  entry.body = body;
  entry.workspace_bytes = plan.bytes;
  std::string names;
  for (const LoweredFunc& k : kernels) names += (names.empty() ? "" : ", ") + k.name;
  entry.doc = {"Op '" + op.name + "' as a graph of " + std::to_string(kernels.size()) + " fused kernels (" + names +
               "), called in order; docs/graph.md."};
  return entry;
}

}  // namespace texc
