#include "lower/analysis/ReductionUpdate.h"

#include "ir/StructuralEqual.h"

namespace texc {

std::optional<std::pair<ReduceKind, Expr>> match_reduction_update(const Store* s) {
  const Binary* b = s->value->as<Binary>();
  if (!b) return std::nullopt;
  ReduceKind kind;
  switch (b->op) {
    case BinaryOp::Add: kind = ReduceKind::Sum; break;
    case BinaryOp::Mul: kind = ReduceKind::Prod; break;
    case BinaryOp::Max: kind = ReduceKind::Max; break;
    case BinaryOp::Min: kind = ReduceKind::Min; break;
    default: return std::nullopt;
  }
  auto is_self = [&](const Expr& e) {
    const Load* l = e->as<Load>();
    if (!l || l->buffer != s->buffer || l->indices.size() != s->indices.size()) return false;
    for (size_t i = 0; i < l->indices.size(); ++i)
      if (!structurally_equal(l->indices[i], s->indices[i])) return false;
    return true;
  };
  if (is_self(b->a)) return std::make_pair(kind, b->b);
  if (is_self(b->b)) return std::make_pair(kind, b->a);
  return std::nullopt;
}

}  // namespace texc
