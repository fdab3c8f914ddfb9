#include "backends/llvm/UsedSymbols.h"

#include <unordered_set>

#include "ir/IRVisitor.h"

namespace texc {

UsedSymbols used_symbols(const Stmt& s) {
  UsedSymbols used;
  std::unordered_set<const Variable*> seen_vars;
  std::unordered_set<const BufferNode*> seen_buffers;
  auto add_buffer = [&](const Buffer& b) {
    if (seen_buffers.insert(b.get()).second) used.buffers.push_back(b.get());
  };
  for_each_expr(s, [&](const Expr& e) {
    if (const Variable* v = e->as<Variable>()) {
      if (seen_vars.insert(v).second) used.vars.push_back(v);
    } else if (const Load* load = e->as<Load>()) {
      add_buffer(load->buffer);
    }
  });
  for_each_stmt(s, [&](const Stmt& st) {
    if (const Store* store = st->as<Store>()) add_buffer(store->buffer);
  });
  return used;
}

}  // namespace texc
