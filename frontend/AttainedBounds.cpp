#include "frontend/AttainedBounds.h"

#include <algorithm>

#include "ir/ConstEval.h"

namespace texc {

namespace {

bool disjoint(const std::set<const Variable*>& a, const std::set<const Variable*>& b) {
  for (const Variable* v : a)
    if (b.count(v)) return false;
  return true;
}

std::set<const Variable*> join(const std::set<const Variable*>& a, const std::set<const Variable*>& b) {
  std::set<const Variable*> r = a;
  r.insert(b.begin(), b.end());
  return r;
}

/// The interval of a op b for monotone ops: the extremes of the four corner values. nullopt on
/// overflow.
std::optional<IndexInterval> corners(BinaryOp op, const IndexInterval& a, const IndexInterval& b) {
  int64_t values[4];
  int n = 0;
  for (int64_t x : {a.lo, a.hi}) {
    for (int64_t y : {b.lo, b.hi}) {
      int64_t r;
      bool overflow = false;
      switch (op) {
        case BinaryOp::Add: overflow = __builtin_add_overflow(x, y, &r); break;
        case BinaryOp::Sub: overflow = __builtin_sub_overflow(x, y, &r); break;
        case BinaryOp::Mul: overflow = __builtin_mul_overflow(x, y, &r); break;
        case BinaryOp::Min: r = std::min(x, y); break;
        case BinaryOp::Max: r = std::max(x, y); break;
        default: return std::nullopt;
      }
      if (overflow) return std::nullopt;
      values[n++] = r;
    }
  }
  IndexInterval out;
  out.lo = *std::min_element(values, values + n);
  out.hi = *std::max_element(values, values + n);
  out.vars = join(a.vars, b.vars);
  out.exact = a.exact && b.exact && disjoint(a.vars, b.vars);
  return out;
}

}  // namespace

std::optional<IndexInterval> attained_bounds_of(const Expr& e, const VarRanges& ranges) {
  if (!e || !e->type.is_scalar()) return std::nullopt;
  if (const IntImm* imm = e->as<IntImm>()) return IndexInterval{imm->value, imm->value, true, {}};
  if (const Variable* v = e->as<Variable>()) {
    auto it = ranges.find(v);
    if (it == ranges.end()) return std::nullopt;
    IndexInterval r = it->second;
    r.vars.insert(v);
    return r;
  }
  const Binary* b = e->as<Binary>();
  if (!b) return std::nullopt;
  auto a = attained_bounds_of(b->a, ranges);
  auto c = attained_bounds_of(b->b, ranges);
  if (!a || !c) return std::nullopt;
  switch (b->op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
      return corners(b->op, *a, *c);
    case BinaryOp::Min:
    case BinaryOp::Max: {
      auto r = corners(b->op, *a, *c);
      if (r) r->exact = false;  // sound, but the ends need not be attained
      return r;
    }
    case BinaryOp::Div: {
      if (c->lo != c->hi || c->lo <= 0) return std::nullopt;
      IndexInterval r{floor_div(a->lo, c->lo), floor_div(a->hi, c->lo), a->exact, a->vars};
      return r;
    }
    case BinaryOp::Mod: {
      if (c->lo != c->hi || c->lo <= 0) return std::nullopt;
      int64_t m = c->lo;
      if (floor_div(a->lo, m) == floor_div(a->hi, m)) {
        return IndexInterval{floor_mod(a->lo, m), floor_mod(a->hi, m), a->exact, a->vars};
      }
      return IndexInterval{0, m - 1, false, a->vars};
    }
    default: return std::nullopt;
  }
}

}  // namespace texc


