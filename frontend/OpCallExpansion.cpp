#include "frontend/OpCallExpansion.h"

#include <map>
#include <memory>

#include "ir/Substitute.h"

namespace texc {

namespace {

/// Applies a callee->caller stage renaming to carried schedule items (composing earlier ones).
void rename_stages(std::vector<SchedItem>& items, const std::map<std::string, std::string>& renames) {
  for (SchedItem& item : items) {
    if (auto* p = std::get_if<SchedPrimitive>(&item)) {
      if (p->stage_renames.empty()) {
        p->stage_renames = renames;
      } else {
        for (auto& [from, to] : p->stage_renames) {
          auto it = renames.find(to);
          if (it != renames.end()) to = it->second;
        }
      }
    } else if (auto* f = std::get_if<std::shared_ptr<SchedIf>>(&item)) {
      auto copy = std::make_shared<SchedIf>(**f);
      rename_stages(copy->then_items, renames);
      rename_stages(copy->else_items, renames);
      *f = copy;
    }
  }
}

/// Gives the names a carried schedule binds (loops, cache stages) the prefix `<call-lhs>_`, so that
/// two calls of one scheduled op do not bind the same names. Uses of those names are renamed too;
/// names bound inside an `if` stay visible after it, as in the block itself.
void prefix_bound_names(std::vector<SchedItem>& items, const std::string& prefix,
                        std::map<std::string, std::string>& bound) {
  for (SchedItem& item : items) {
    if (auto* p = std::get_if<SchedPrimitive>(&item)) {
      for (SchedArg& a : p->args) {
        if (!a.is_name()) continue;
        auto dot = a.name.find('.');
        auto it = bound.find(a.name.substr(0, dot));
        if (it != bound.end()) a.name = it->second + (dot == std::string::npos ? "" : a.name.substr(dot));
      }
      for (std::string& r : p->results) r = bound[r] = prefix + r;
    } else if (auto* f = std::get_if<std::shared_ptr<SchedIf>>(&item)) {
      auto copy = std::make_shared<SchedIf>(**f);
      prefix_bound_names(copy->then_items, prefix, bound);
      prefix_bound_names(copy->else_items, prefix, bound);
      *f = copy;
    }
  }
}

}  // namespace

ExpandedCall expand_op_call(const OpCall& call, const std::function<bool(const std::string&)>& name_taken,
                            const std::set<std::string>& caller_outputs) {
  const ast::OpDecl& callee = *call.decl;
  const OpDef& expanded = *call.elaborated;

  // Callee names -> caller names: its tensor parameters become the arguments (so a carried
  // `cache_read(B, ...)` reads what the caller passed as B), its outputs the call's results.
  std::map<std::string, std::string> renames;
  size_t arg = 0;
  for (const ast::OpParam& p : callee.params)
    if (!p.is_attribute()) renames[p.name.text] = call.args.at(arg++);
  std::set<std::string> callee_outputs;
  for (size_t k = 0; k < callee.outputs.size(); ++k) {
    renames[callee.outputs[k].text] = call.results.at(k);
    callee_outputs.insert(callee.outputs[k].text);
  }
  std::set<std::string> chosen(call.results.begin(), call.results.end());
  auto taken = [&](const std::string& n) { return name_taken(n) || chosen.count(n); };
  const std::string& lhs = call.results.front();
  for (const Stage& s : expanded.stages) {
    if (callee_outputs.count(s.name)) continue;
    std::string name = s.name;
    if (taken(name)) name = lhs + "_" + s.name;
    for (int suffix = 2; taken(name); ++suffix) name = lhs + "_" + s.name + "_" + std::to_string(suffix);
    renames[s.name] = name;
    chosen.insert(name);
  }

  ExpandedCall out;
  BufferMap buffers;
  for (const Stage& s : expanded.stages) {
    const std::string& name = renames.at(s.name);
    BufferRole role = caller_outputs.count(name) ? BufferRole::Output : BufferRole::Intermediate;
    buffers[s.buffer.get()] = BufferNode::make(name, s.buffer->dtype, s.buffer->shape, s.buffer->scope, role);
  }
  for (const Stage& s : expanded.stages) {
    Stage copy = s;
    copy.name = renames.at(s.name);
    copy.buffer = buffers.at(s.buffer.get());
    copy.body = substitute_buffers(s.body, buffers);
    copy.origin_call = call.callee;
    copy.call_site = lhs;
    out.stages.push_back(std::move(copy));
  }
  for (ScheduleBlock block : expanded.schedules) {
    std::map<std::string, std::string> bound;
    prefix_bound_names(block.items, lhs + "_", bound);
    rename_stages(block.items, renames);
    if (block.origin.empty()) {
      for (const Stage& s : out.stages) block.call_stages.push_back(s.name);
    } else {
      for (std::string& s : block.call_stages) s = renames.at(s);
    }
    block.origin = block.origin.empty() ? lhs : lhs + "_" + block.origin;
    out.schedules.push_back(std::move(block));
  }
  return out;
}

}  // namespace texc
