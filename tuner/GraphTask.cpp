#include "tuner/GraphTask.h"

#include <cstdio>
#include <map>
#include <set>

#include "ir/ConstEval.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"

namespace texc {

namespace {

/// "f32[1, 8, 8, 8]"
std::string typed_shape(const Buffer& b) {
  std::string out = b->dtype.str() + "[";
  for (size_t i = 0; i < b->shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(eval_int(b->shape[i]).value_or(-1));
  return out + "]";
}

/// FNV-1a, 32 bits, as 8 hex digits.
std::string digest(const std::string& text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", h);
  return buf;
}

/// The key of a kernel with no anchor call: the kernel itself.
std::string kernel_key(const OpDef& op) {
  std::string key = "kernel " + op.name + "(";
  for (size_t i = 0; i < op.inputs.size(); ++i) key += (i ? ", " : "") + typed_shape(op.inputs[i]);
  key += ") ->";
  for (size_t i = 0; i < op.outputs.size(); ++i) key += (i ? ", " : " ") + typed_shape(op.outputs[i]);
  return key;
}

}  // namespace

std::string graph_task_key(const GraphKernel& kernel) {
  const OpDef& op = kernel.op;
  const Stage* anchor = op.find_stage(kernel.group.anchor);
  if (kernel.group.anchor_call.empty() || !anchor || anchor->call_site.empty()) return kernel_key(op);
  std::vector<const Stage*> call;  // the anchor call's stages (a call is never split: all here)
  std::set<std::string> call_names;
  for (const Stage& s : op.stages)
    if (s.call_site == anchor->call_site) {
      call.push_back(&s);
      call_names.insert(s.name);
    }
  // Every tensor the call's stages touch, renamed t0, t1, ... in the order they are first read or
  // defined: the call's structure without the caller's names.
  std::map<std::string, std::string> canonical;
  std::vector<Buffer> inputs;
  std::set<std::string> read_inside;
  BufferMap renamed;
  auto name_of = [&](const Buffer& b) {
    auto it = canonical.find(b->name);
    if (it == canonical.end()) it = canonical.emplace(b->name, "t" + std::to_string(canonical.size())).first;
    if (!renamed.count(b.get())) renamed[b.get()] = BufferNode::make(it->second, b->dtype, b->shape, b->scope, b->role);
  };
  for (const Stage* s : call) {
    for_each_expr(s->body, [&](const Expr& e) {
      auto* load = e->as<Load>();
      if (!load) return;
      if (!call_names.count(load->buffer->name) && !canonical.count(load->buffer->name)) inputs.push_back(load->buffer);
      if (call_names.count(load->buffer->name)) read_inside.insert(load->buffer->name);
      name_of(load->buffer);
    });
    name_of(s->buffer);
  }
  std::string structure;
  for (const Stage* s : call)
    structure += canonical.at(s->name) + typed_shape(s->buffer) + " = " + to_string(substitute_buffers(s->body, renamed)) +
                 "\n";
  std::string key = kernel.group.anchor_call + "(";
  for (size_t i = 0; i < inputs.size(); ++i) key += (i ? ", " : "") + typed_shape(inputs[i]);
  key += ") ->";
  bool first = true;
  for (const Stage* s : call)
    if (!read_inside.count(s->name)) {
      key += (first ? " " : ", ") + typed_shape(s->buffer);
      first = false;
    }
  return key + " #" + digest(structure);
}

std::vector<GraphTask> graph_tasks(const GraphOps& graph) {
  std::vector<GraphTask> tasks;
  std::map<std::string, size_t> index;
  for (size_t k = 0; k < graph.kernels.size(); ++k) {
    std::string key = graph_task_key(graph.kernels[k]);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, tasks.size()).first;
      tasks.push_back({key, {}, count_flops(graph.kernels[k].op)});
    }
    tasks[it->second].kernels.push_back(k);
  }
  return tasks;
}

}  // namespace texc
