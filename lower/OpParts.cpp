#include "lower/OpParts.h"

#include "ir/IRVisitor.h"

namespace texc {

std::set<std::string> buffers_read(const Expr& body) {
  std::set<std::string> names;
  for_each_expr(body, [&](const Expr& e) {
    if (auto* load = e->as<Load>()) names.insert(load->buffer->name);
  });
  return names;
}

Buffer with_role(const Buffer& b, BufferRole role) { return BufferNode::make(b->name, b->dtype, b->shape, b->scope, role); }

}  // namespace texc
