#include "ir/CallerWorkspace.h"

#include "ir/Substitute.h"

namespace texc {

std::string caller_workspace_entry_name(const std::string& entry_name) { return entry_name + "_with_workspace"; }

std::optional<LoweredFunc> caller_workspace_entry(const LoweredFunc& entry) {
  if (entry.kind != FunctionKind::Host || entry.workspace_bytes <= 0 || !entry.body) return std::nullopt;
  const auto* arena = entry.body->as<Allocate>();
  if (!arena || arena->buffer->name != "workspace" || arena->buffer->dtype != UInt(8) ||
      arena->buffer->shape.size() != 1 || !is_const_int(arena->buffer->shape[0], entry.workspace_bytes))
    return std::nullopt;
  LoweredFunc with = entry;
  with.name = caller_workspace_entry_name(entry.name);
  Buffer workspace = BufferNode::make("workspace", UInt(8), {make_int(entry.workspace_bytes)}, MemScope::Global,
                                      BufferRole::Output);
  with.args.push_back(workspace);
  with.arg_dims.push_back({entry.workspace_bytes});
  with.body = substitute_buffers(arena->body, {{arena->buffer.get(), workspace}});
  with.doc = {};
  return with;
}

}  // namespace texc
