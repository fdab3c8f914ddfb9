#include "lower/graph/GraphOps.h"

#include <algorithm>
#include <map>
#include <set>
#include <variant>

#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/OpParts.h"

namespace texc {

std::string graph_kernel_name(const std::string& op, size_t index) { return op + "_k" + std::to_string(index); }

GraphOps split_graph(const OpDef& op, const GraphPartition& partition) {
  std::map<std::string, size_t> kernel_of;  // stage -> kernel
  for (size_t k = 0; k < partition.groups.size(); ++k)
    for (const std::string& s : partition.groups[k].stages) kernel_of[s] = k;
  std::set<std::string> outputs;
  for (const Buffer& b : op.outputs) outputs.insert(b->name);
  std::map<std::string, std::set<std::string>> reads;  // stage -> buffers it reads
  for (const Stage& s : op.stages) reads[s.name] = buffers_read(s.body);
  // The tensors read by a later kernel, and the last kernel that reads each.
  std::map<std::string, size_t> last_reader;
  for (const Stage& s : op.stages)
    for (const std::string& r : reads[s.name])
      if (kernel_of.count(r) && kernel_of[r] != kernel_of[s.name])
        last_reader[r] = std::max(last_reader[r], kernel_of[s.name]);

  GraphOps graph;
  for (const Stage& s : op.stages)
    if (last_reader.count(s.name) && !outputs.count(s.name))
      graph.intermediates.push_back({s.buffer, kernel_of[s.name], last_reader[s.name]});

  for (size_t k = 0; k < partition.groups.size(); ++k) {
    const FusedGroup& group = partition.groups[k];
    std::set<std::string> mine(group.stages.begin(), group.stages.end());
    std::set<std::string> read;
    for (const std::string& s : group.stages) read.insert(reads[s].begin(), reads[s].end());
    GraphKernel kernel;
    kernel.group = group;
    OpDef& sub = kernel.op;
    sub.name = graph_kernel_name(op.name, k);
    sub.loc = op.loc;
    // The op's own blocks, and the blocks carried from the calls whose stages are in this kernel:
    // a block carried from a call of another kernel schedules nothing here (its steps name stages
    // this kernel elides), so its knobs are not the kernel's (its tuning space, tuner/GraphTask.h).
    for (const ScheduleBlock& b : op.schedules)
      if (b.origin.empty() ||
          std::any_of(b.call_stages.begin(), b.call_stages.end(), [&](const std::string& s) { return mine.count(s); }))
        sub.schedules.push_back(b);
    sub.intrinsics = op.intrinsics;
    sub.attributes = op.attributes;
    sub.input_domains = op.input_domains;
    sub.elided_stages = op.elided_stages;  // a main half's prepare stages (lower/SplitPrepare.h)
    sub.prepare_function = op.prepare_function;  // which computes them: the op's, not the kernel's
    for (const Buffer& b : op.inputs)
      if (read.count(b->name)) sub.inputs.push_back(b);
    BufferMap renamed;
    std::map<std::string, Buffer> written;  // the kernel's outputs by name
    for (const Stage& s : op.stages)  // tensors of earlier kernels, in the order they are produced
      if (read.count(s.name) && !mine.count(s.name)) {
        Buffer input = with_role(s.buffer, BufferRole::Input);
        renamed[s.buffer.get()] = input;
        sub.inputs.push_back(input);
      }
    for (const Stage& s : op.stages) {
      if (!mine.count(s.name)) {
        sub.elided_stages.insert(s.name);
        continue;
      }
      Stage copy = s;
      if (outputs.count(s.name) || last_reader.count(s.name)) {
        copy.buffer = with_role(s.buffer, BufferRole::Output);
        renamed[s.buffer.get()] = copy.buffer;
        written[s.name] = copy.buffer;
      }
      sub.stages.push_back(std::move(copy));
    }
    // Outputs: the op's outputs in `->` order first (as the op lists them), then the tensors later
    // kernels read, in stage order.
    for (const Buffer& b : op.outputs)
      if (mine.count(b->name)) sub.outputs.push_back(written.at(b->name));
    for (const Stage& s : op.stages)
      if (mine.count(s.name) && !outputs.count(s.name) && last_reader.count(s.name))
        sub.outputs.push_back(written.at(s.name));
    for (Stage& s : sub.stages) s.body = substitute_buffers(s.body, renamed);
    graph.kernels.push_back(std::move(kernel));
  }
  return graph;
}

namespace {

/// The tensors `items` cache_read (first arguments, in the caller's names).
void cache_read_tensors(const std::vector<SchedItem>& items, std::set<std::string>& out) {
  for (const SchedItem& item : items) {
    if (const auto* p = std::get_if<SchedPrimitive>(&item)) {
      if (p->primitive != "cache_read" || p->args.empty() || !p->args[0].is_name()) continue;
      const std::string& name = p->args[0].name;
      auto renamed = p->stage_renames.find(name);
      out.insert(renamed == p->stage_renames.end() ? name : renamed->second);
    } else if (const auto* f = std::get_if<std::shared_ptr<SchedIf>>(&item)) {
      cache_read_tensors((*f)->then_items, out);
      cache_read_tensors((*f)->else_items, out);
    }
  }
}

}  // namespace

OpDef with_anchor_schedules(const GraphKernel& kernel) {
  const OpDef& op = kernel.op;
  OpDef out = op;
  out.schedules.clear();
  std::set<std::string> cached;  // tensors the anchor's blocks cache_read
  for (const ScheduleBlock& b : op.schedules) {
    bool keep = b.origin.empty() || b.call_stages.empty();
    bool anchor = false;
    for (const std::string& s : b.call_stages) {
      if (kernel.group.anchor.empty() ? !op.elided_stages.count(s) : s == kernel.group.anchor) keep = true;
      anchor = anchor || s == kernel.group.anchor;
    }
    if (!keep) continue;
    out.schedules.push_back(b);
    if (anchor) cache_read_tensors(b.items, cached);
  }
  // A tensor of an earlier kernel the anchor caches (dense's cache_read(X, shared, P) with X a
  // flatten's result) is an input here, as the anchor's schedule expects: its steps apply.
  for (const Buffer& b : op.inputs)
    if (cached.count(b->name)) out.elided_stages.erase(b->name);
  return out;
}

}  // namespace texc
