#include "ir/ConstEval.h"

namespace texc {

int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) return int64_t(uint64_t(0) - uint64_t(a));  // INT64_MIN / -1 wraps instead of trapping
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;  // INT64_MIN % -1 would trap
  int64_t r = a % b;      // no overflow: |r| < |b|
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static int64_t wrap(Type t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (t.bits >= 64) return v;
  uint64_t mask = (uint64_t(1) << t.bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (t.is_int() && ((u >> (t.bits - 1)) & 1)) u |= ~mask;
  return int64_t(u);
}

std::optional<int64_t> eval_int(const Expr& e, const VarValues& values) {
  if (!e || !(e->type.is_integer() || e->type.is_bool()) || !e->type.is_scalar()) return std::nullopt;
  switch (e->kind) {
    case ExprKind::IntImm: return e->as<IntImm>()->value;
    case ExprKind::Variable: {
      auto it = values.find(e->as<Variable>());
      if (it == values.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::Not: {
      auto a = eval_int(e->as<Not>()->a, values);
      if (!a) return std::nullopt;
      return int64_t(*a == 0);
    }
    case ExprKind::Select: {
      auto* s = e->as<Select>();
      auto c = eval_int(s->cond, values);
      if (!c) return std::nullopt;
      return eval_int(*c ? s->true_value : s->false_value, values);
    }
    case ExprKind::Cast: {
      auto* c = e->as<Cast>();
      auto v = eval_int(c->value, values);
      if (!v) return std::nullopt;
      return wrap(c->type, *v);
    }
    case ExprKind::Binary: {
      auto* b = e->as<Binary>();
      if (b->op == BinaryOp::And || b->op == BinaryOp::Or) {
        auto x = eval_int(b->a, values);
        if (!x) return std::nullopt;
        if (b->op == BinaryOp::And && !*x) return 0;
        if (b->op == BinaryOp::Or && *x) return 1;
        auto y = eval_int(b->b, values);
        if (!y) return std::nullopt;
        return int64_t(*y != 0);
      }
      auto x = eval_int(b->a, values), y = eval_int(b->b, values);
      if (!x || !y) return std::nullopt;
      int64_t a = *x, c = *y, r = 0;
      Type t = b->a->type;
      bool is_unsigned = t.is_uint();
      switch (b->op) {
        case BinaryOp::Add: r = int64_t(uint64_t(a) + uint64_t(c)); break;
        case BinaryOp::Sub: r = int64_t(uint64_t(a) - uint64_t(c)); break;
        case BinaryOp::Mul: r = int64_t(uint64_t(a) * uint64_t(c)); break;
        case BinaryOp::Div:
          if (c == 0) return std::nullopt;
          r = is_unsigned ? int64_t(uint64_t(a) / uint64_t(c)) : floor_div(a, c);
          break;
        case BinaryOp::Mod:
          if (c == 0) return std::nullopt;
          r = is_unsigned ? int64_t(uint64_t(a) % uint64_t(c)) : floor_mod(a, c);
          break;
        case BinaryOp::Min: r = is_unsigned ? int64_t(std::min(uint64_t(a), uint64_t(c))) : std::min(a, c); break;
        case BinaryOp::Max: r = is_unsigned ? int64_t(std::max(uint64_t(a), uint64_t(c))) : std::max(a, c); break;
        case BinaryOp::Shl: r = (c < 0 || c >= 64) ? 0 : int64_t(uint64_t(a) << c); break;
        case BinaryOp::Shr:
          if (c < 0 || c >= 64) r = (a < 0 && !is_unsigned) ? -1 : 0;
          else r = is_unsigned ? int64_t(uint64_t(a) >> c) : (a >> c);
          break;
        case BinaryOp::EQ: return int64_t(a == c);
        case BinaryOp::NE: return int64_t(a != c);
        case BinaryOp::LT: return int64_t(is_unsigned ? uint64_t(a) < uint64_t(c) : a < c);
        case BinaryOp::LE: return int64_t(is_unsigned ? uint64_t(a) <= uint64_t(c) : a <= c);
        case BinaryOp::GT: return int64_t(is_unsigned ? uint64_t(a) > uint64_t(c) : a > c);
        case BinaryOp::GE: return int64_t(is_unsigned ? uint64_t(a) >= uint64_t(c) : a >= c);
        default: return std::nullopt;
      }
      return wrap(e->type, r);
    }
    default: return std::nullopt;
  }
}

}  // namespace texc
