#include "ir/ExprOrder.h"

#include <cmath>
#include <functional>

namespace texc {

namespace {

template <typename T>
int cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_types(Type a, Type b) {
  if (int c = cmp(int(a.code), int(b.code))) return c;
  if (int c = cmp(int(a.bits), int(b.bits))) return c;
  return cmp(int(a.lanes), int(b.lanes));
}

int compare_vars(const Variable* a, const Variable* b) {
  if (a == b) return 0;
  if (int c = cmp(a->name, b->name)) return c;
  if (int c = compare_types(a->type, b->type)) return c;
  return std::less<const Variable*>()(a, b) ? -1 : 1;
}

int compare_buffers(const BufferNode* a, const BufferNode* b) {
  if (a == b) return 0;
  if (int c = cmp(a->name, b->name)) return c;
  return std::less<const BufferNode*>()(a, b) ? -1 : 1;
}

int compare_lists(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (int c = cmp(a.size(), b.size())) return c;
  for (size_t i = 0; i < a.size(); ++i)
    if (int c = compare_exprs(a[i], b[i])) return c;
  return 0;
}

}  // namespace

int compare_exprs(const Expr& a, const Expr& b) {
  if (a == b) return 0;
  if (!a || !b) return a ? 1 : -1;
  if (int c = cmp(int(a->kind), int(b->kind))) return c;
  if (int c = compare_types(a->type, b->type)) return c;
  switch (a->kind) {
    case ExprKind::IntImm: return cmp(a->as<IntImm>()->value, b->as<IntImm>()->value);
    case ExprKind::FloatImm: {
      double x = a->as<FloatImm>()->value, y = b->as<FloatImm>()->value;
      if (x == y && std::signbit(x) == std::signbit(y)) return 0;
      if (x != x || y != y) return cmp(int(x != x), int(y != y));
      if (x == y) return cmp(int(std::signbit(y)), int(std::signbit(x)));
      return cmp(x, y);
    }
    case ExprKind::Variable: return compare_vars(a->as<Variable>(), b->as<Variable>());
    case ExprKind::Binary: {
      auto *x = a->as<Binary>(), *y = b->as<Binary>();
      if (int c = cmp(int(x->op), int(y->op))) return c;
      if (int c = compare_exprs(x->a, y->a)) return c;
      return compare_exprs(x->b, y->b);
    }
    case ExprKind::Not: return compare_exprs(a->as<Not>()->a, b->as<Not>()->a);
    case ExprKind::Select: {
      auto *x = a->as<Select>(), *y = b->as<Select>();
      if (int c = compare_exprs(x->cond, y->cond)) return c;
      if (int c = compare_exprs(x->true_value, y->true_value)) return c;
      return compare_exprs(x->false_value, y->false_value);
    }
    case ExprKind::Cast: return compare_exprs(a->as<Cast>()->value, b->as<Cast>()->value);
    case ExprKind::Call: {
      auto *x = a->as<Call>(), *y = b->as<Call>();
      if (int c = cmp(x->name, y->name)) return c;
      if (int c = cmp(int(x->call_kind), int(y->call_kind))) return c;
      return compare_lists(x->args, y->args);
    }
    case ExprKind::Load: {
      auto *x = a->as<Load>(), *y = b->as<Load>();
      if (int c = compare_buffers(x->buffer.get(), y->buffer.get())) return c;
      return compare_lists(x->indices, y->indices);
    }
    case ExprKind::Ramp: {
      auto *x = a->as<Ramp>(), *y = b->as<Ramp>();
      if (int c = compare_exprs(x->base, y->base)) return c;
      return compare_exprs(x->stride, y->stride);
    }
    case ExprKind::Broadcast: return compare_exprs(a->as<Broadcast>()->value, b->as<Broadcast>()->value);
    case ExprKind::Let: {
      auto *x = a->as<Let>(), *y = b->as<Let>();
      if (int c = compare_vars(x->var.get(), y->var.get())) return c;
      if (int c = compare_exprs(x->value, y->value)) return c;
      return compare_exprs(x->body, y->body);
    }
    case ExprKind::Reduce: {
      auto *x = a->as<Reduce>(), *y = b->as<Reduce>();
      if (int c = cmp(int(x->reduce_kind), int(y->reduce_kind))) return c;
      if (int c = cmp(x->axes.size(), y->axes.size())) return c;
      for (size_t i = 0; i < x->axes.size(); ++i) {
        if (int c = compare_vars(x->axes[i].var.get(), y->axes[i].var.get())) return c;
        if (int c = compare_exprs(x->axes[i].min, y->axes[i].min)) return c;
        if (int c = compare_exprs(x->axes[i].extent, y->axes[i].extent)) return c;
      }
      return compare_exprs(x->source, y->source);
    }
  }
  return 0;
}

}  // namespace texc
