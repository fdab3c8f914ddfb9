#include "ir/Bounds.h"

#include <algorithm>
#include <limits>

#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace texc {

// ---------------------------------------------------------------------------------------------
// Interval

Interval Interval::of_type(Type t) {
  if (t.is_bool()) return range(0, 1);
  if (t.bits >= 64 || t.is_float()) return everything();
  if (t.is_uint()) return range(0, (int64_t(1) << t.bits) - 1);
  return range(-(int64_t(1) << (t.bits - 1)), (int64_t(1) << (t.bits - 1)) - 1);
}

bool Interval::is_within(const Interval& o) const {
  bool lo_ok = !o.min || (min && *min >= *o.min);
  bool hi_ok = !o.max || (max && *max <= *o.max);
  return lo_ok && hi_ok;
}

Interval Interval::make_union(const Interval& a, const Interval& b) {
  Interval r;
  if (a.min && b.min) r.min = std::min(*a.min, *b.min);
  if (a.max && b.max) r.max = std::max(*a.max, *b.max);
  return r;
}

Interval Interval::make_intersection(const Interval& a, const Interval& b) {
  Interval r = a;
  if (b.min) r.min = a.min ? std::max(*a.min, *b.min) : *b.min;
  if (b.max) r.max = a.max ? std::min(*a.max, *b.max) : *b.max;
  return r;
}

std::string Interval::str() const {
  return "[" + (min ? std::to_string(*min) : std::string("-inf")) + ", " +
         (max ? std::to_string(*max) : std::string("+inf")) + "]";
}

namespace {

// ---------------------------------------------------------------------------------------------
// Extended integers: a finite 128-bit value or +-infinity, so that products and sums of int64
// bounds never overflow while computing.

struct Ext {
  int inf = 0;  // -1: -inf, +1: +inf, 0: finite
  __int128 v = 0;
  static Ext fin(__int128 x) { return {0, x}; }
  static Ext neg_inf() { return {-1, 0}; }
  static Ext pos_inf() { return {1, 0}; }
  int sign() const { return inf != 0 ? inf : (v > 0) - (v < 0); }
};

bool operator<(const Ext& a, const Ext& b) {
  if (a.inf != b.inf) return a.inf < b.inf;
  return a.inf == 0 && a.v < b.v;
}

Ext add(const Ext& a, const Ext& b) {
  if (a.inf != 0) return a;  // callers never add -inf to +inf (lower + lower, upper + upper)
  if (b.inf != 0) return b;
  return Ext::fin(a.v + b.v);
}

Ext negate(const Ext& a) { return a.inf != 0 ? Ext{-a.inf, 0} : Ext::fin(-a.v); }

Ext mul(const Ext& a, const Ext& b) {
  if (a.inf == 0 && b.inf == 0) return Ext::fin(a.v * b.v);  // |values| <= 2^64, fits
  int s = a.sign() * b.sign();
  if (s == 0) return Ext::fin(0);
  return s > 0 ? Ext::pos_inf() : Ext::neg_inf();
}

__int128 floor_div128(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// a / b for finite nonzero b.
Ext div(const Ext& a, __int128 b) {
  if (a.inf != 0) return (a.inf > 0) == (b > 0) ? Ext::pos_inf() : Ext::neg_inf();
  return Ext::fin(floor_div128(a.v, b));
}

struct ExtInterval {
  Ext lo, hi;
};

ExtInterval to_ext(const Interval& i) {
  return {i.min ? Ext::fin(*i.min) : Ext::neg_inf(), i.max ? Ext::fin(*i.max) : Ext::pos_inf()};
}

constexpr __int128 kI64Min = std::numeric_limits<int64_t>::min();
constexpr __int128 kI64Max = std::numeric_limits<int64_t>::max();

Interval from_ext(const ExtInterval& e) {
  Interval r;
  if (e.lo.inf == 0 && e.lo.v >= kI64Min && e.lo.v <= kI64Max) r.min = int64_t(e.lo.v);
  if (e.hi.inf == 0 && e.hi.v >= kI64Min && e.hi.v <= kI64Max) r.max = int64_t(e.hi.v);
  return r;
}

ExtInterval corners(Ext a, Ext b, Ext c, Ext d) {
  return {std::min({a, b, c, d}), std::max({a, b, c, d})};
}

// Clamps a result to what a value of type t can hold: if the exact result could leave the type's
// range, the value wrapped, and only the type's range is known.
Interval fit_to_type(const Interval& r, Type t) {
  if (t.is_uint() && t.bits >= 64) return r.is_point() ? r : Interval::everything();
  Interval type_range = Interval::of_type(t);
  if (r.is_within(type_range)) return r;
  return type_range;
}

class BoundsOf {
 public:
  explicit BoundsOf(const VarIntervals& vars) : vars_(vars) {}

  Interval get(const Expr& e) {
    if (e.get() == nullptr) return Interval::everything();
    if (!(e->type.is_integer() || e->type.is_bool())) return Interval::everything();
    return fit_to_type(compute(e), e->type.element_of());
  }

 private:
  Interval compute(const Expr& e) {
    Type t = e->type.element_of();
    switch (e->kind) {
      case ExprKind::IntImm: return Interval::point(e->as<IntImm>()->value);
      case ExprKind::Variable: {
        auto it = lets_.find(e->as<Variable>());
        if (it != lets_.end()) return it->second;
        auto jt = vars_.find(e->as<Variable>());
        if (jt != vars_.end()) return jt->second;
        return Interval::of_type(t);
      }
      case ExprKind::Binary: return binary(e->as<Binary>());
      case ExprKind::Not: {
        Interval a = get(e->as<Not>()->a);
        if (a.is_point()) return Interval::point(*a.min == 0);
        return Interval::range(0, 1);
      }
      case ExprKind::Select: {
        auto* s = e->as<Select>();
        Interval c = get(s->cond);
        if (c.is_point()) return get(*c.min ? s->true_value : s->false_value);
        return Interval::make_union(get(s->true_value), get(s->false_value));
      }
      case ExprKind::Cast: {
        auto* c = e->as<Cast>();
        Type from = c->value->type.element_of();
        if (t.is_bool()) {
          Interval v = get(c->value);
          if (v.is_point()) return Interval::point(*v.min != 0);
          if (from.is_integer() && !v.contains(0)) return Interval::point(1);
          return Interval::range(0, 1);
        }
        if (from.is_integer() || from.is_bool()) {
          if (from.is_uint() && from.bits >= 64) return Interval::of_type(t);
          Interval v = get(c->value);
          if (v.is_within(Interval::of_type(t))) return v;
        }
        return Interval::of_type(t);
      }
      case ExprKind::Ramp: {
        auto* r = e->as<Ramp>();
        Interval base = get(r->base), stride = get(r->stride);
        ExtInterval s = to_ext(stride), b = to_ext(base);
        ExtInterval steps = {mul(s.lo, Ext::fin(r->lanes - 1)), mul(s.hi, Ext::fin(r->lanes - 1))};
        ExtInterval last = {add(b.lo, std::min(steps.lo, Ext::fin(0))), add(b.hi, std::max(steps.hi, Ext::fin(0)))};
        return from_ext(last);
      }
      case ExprKind::Broadcast: return get(e->as<Broadcast>()->value);
      case ExprKind::Let: {
        auto* l = e->as<Let>();
        Interval v = get(l->value);
        auto saved = lets_.find(l->var.get()) != lets_.end() ? std::optional<Interval>(lets_[l->var.get()])
                                                                : std::nullopt;
        lets_[l->var.get()] = v;
        Interval r = get(l->body);
        if (saved) lets_[l->var.get()] = *saved;
        else lets_.erase(l->var.get());
        return r;
      }
      case ExprKind::Call: {
        auto* c = e->as<Call>();
        if (is_value_hint(c)) return get(c->args[0]);
        if (c->name == "abs" && c->args.size() == 1 && t.is_int()) {
          Interval a = get(c->args[0]);
          ExtInterval x = to_ext(a);
          if (a.min && *a.min >= 0) return a;
          if (a.max && *a.max <= 0) return from_ext({negate(x.hi), negate(x.lo)});
          return from_ext({Ext::fin(0), std::max(negate(x.lo), x.hi)});
        }
        return Interval::of_type(t);
      }
      default: return Interval::of_type(t);
    }
  }

  Interval compare(BinaryOp op, const Interval& a, const Interval& b) {
    auto lt = [](const Interval& x, const Interval& y) { return x.max && y.min && *x.max < *y.min; };
    auto le = [](const Interval& x, const Interval& y) { return x.max && y.min && *x.max <= *y.min; };
    auto disjoint = [&](const Interval& x, const Interval& y) { return lt(x, y) || lt(y, x); };
    switch (op) {
      case BinaryOp::LT:
        if (lt(a, b)) return Interval::point(1);
        if (le(b, a)) return Interval::point(0);
        break;
      case BinaryOp::LE:
        if (le(a, b)) return Interval::point(1);
        if (lt(b, a)) return Interval::point(0);
        break;
      case BinaryOp::GT:
        if (lt(b, a)) return Interval::point(1);
        if (le(a, b)) return Interval::point(0);
        break;
      case BinaryOp::GE:
        if (le(b, a)) return Interval::point(1);
        if (lt(a, b)) return Interval::point(0);
        break;
      case BinaryOp::EQ:
        if (a.is_point() && b.is_point() && *a.min == *b.min) return Interval::point(1);
        if (disjoint(a, b)) return Interval::point(0);
        break;
      case BinaryOp::NE:
        if (a.is_point() && b.is_point() && *a.min == *b.min) return Interval::point(0);
        if (disjoint(a, b)) return Interval::point(1);
        break;
      default: break;
    }
    return Interval::range(0, 1);
  }

  Interval binary(const Binary* op) {
    Type operand_type = op->a->type.element_of();
    if (op->op == BinaryOp::And || op->op == BinaryOp::Or) {
      Interval a = get(op->a), b = get(op->b);
      bool is_and = op->op == BinaryOp::And;
      // And: false if either is false; true if both are true. Or: dually.
      int64_t absorbing = is_and ? 0 : 1;
      if ((a.is_point() && *a.min == absorbing) || (b.is_point() && *b.min == absorbing))
        return Interval::point(absorbing);
      if (a.is_point() && b.is_point()) return Interval::point(1 - absorbing);
      return Interval::range(0, 1);
    }
    if (is_comparison(op->op)) {
      if (!(operand_type.is_integer() || operand_type.is_bool())) return Interval::range(0, 1);
      if (operand_type.is_uint() && operand_type.bits >= 64) return Interval::range(0, 1);
      return compare(op->op, get(op->a), get(op->b));
    }
    if (operand_type.is_uint() && operand_type.bits >= 64) return Interval::everything();
    Interval a = get(op->a), b = get(op->b);
    ExtInterval x = to_ext(a), y = to_ext(b);
    switch (op->op) {
      case BinaryOp::Add: return from_ext({add(x.lo, y.lo), add(x.hi, y.hi)});
      case BinaryOp::Sub: return from_ext({add(x.lo, negate(y.hi)), add(x.hi, negate(y.lo))});
      case BinaryOp::Mul:
        return from_ext(corners(mul(x.lo, y.lo), mul(x.lo, y.hi), mul(x.hi, y.lo), mul(x.hi, y.hi)));
      case BinaryOp::Div: return divide(a, b);
      case BinaryOp::Mod: return modulo(a, b);
      case BinaryOp::Min: return from_ext({std::min(x.lo, y.lo), std::min(x.hi, y.hi)});
      case BinaryOp::Max: return from_ext({std::max(x.lo, y.lo), std::max(x.hi, y.hi)});
      case BinaryOp::Shl:
        if (b.is_point() && *b.min >= 0 && *b.min < 63) {
          Ext f = Ext::fin(__int128(1) << *b.min);
          return from_ext({mul(x.lo, f), mul(x.hi, f)});
        }
        return Interval::everything();
      case BinaryOp::Shr:
        if (b.is_point() && *b.min >= 0 && *b.min < 63) return divide(a, Interval::point(int64_t(1) << *b.min));
        return Interval::everything();
      default: return Interval::everything();
    }
  }

  Interval divide(const Interval& a, const Interval& b) {
    ExtInterval x = to_ext(a);
    // The divisor must have one sign and be bounded away from zero.
    bool positive = b.min && *b.min > 0, negative = b.max && *b.max < 0;
    if (!positive && !negative) return Interval::everything();
    if (b.is_point()) {
      __int128 c = *b.min;
      Ext lo = div(x.lo, c), hi = div(x.hi, c);
      return from_ext({std::min(lo, hi), std::max(lo, hi)});
    }
    // Floor of the real quotient is monotone in each argument on a one-signed divisor range, so
    // the extremes are at the corners; an unbounded divisor side tends the quotient to 0.
    ExtInterval y = to_ext(b);
    auto q = [&](const Ext& n, const Ext& d) -> Ext {
      if (d.inf != 0) return n.inf != 0 ? (n.sign() * d.sign() > 0 ? Ext::pos_inf() : Ext::neg_inf())
                                        : Ext::fin(n.v >= 0 ? (d.inf > 0 ? 0 : -1) : (d.inf > 0 ? -1 : 0));
      return div(n, d.v);
    };
    return from_ext(corners(q(x.lo, y.lo), q(x.lo, y.hi), q(x.hi, y.lo), q(x.hi, y.hi)));
  }

  Interval modulo(const Interval& a, const Interval& b) {
    if (b.is_point() && *b.min != 0) {
      int64_t c = *b.min;
      if (a.is_bounded() && floor_div(*a.min, c) == floor_div(*a.max, c))
        return Interval::range(floor_mod(*a.min, c), floor_mod(*a.max, c));
      return c > 0 ? Interval::range(0, c - 1) : Interval::range(c + 1, 0);
    }
    if (b.min && *b.min > 0) {
      if (a.min && *a.min >= 0 && a.max && *a.max < *b.min) return a;
      return b.max ? Interval::range(0, *b.max - 1) : Interval{0, std::nullopt};
    }
    if (b.max && *b.max < 0) return b.min ? Interval::range(*b.min + 1, 0) : Interval{std::nullopt, 0};
    return Interval::everything();
  }

  const VarIntervals& vars_;
  VarIntervals lets_;
};

// ---------------------------------------------------------------------------------------------
// Symbolic bounds

class SymBoundsOf {
 public:
  explicit SymBoundsOf(const SymVarIntervals& relaxed) : relaxed_(relaxed) {}

  SymInterval get(const Expr& e) {
    if (!mentions_relaxed(e)) {
      Expr s = simplify(e);
      return {s, s};
    }
    SymInterval r = compute(e);
    if (r.min) r.min = simplify(r.min);
    if (r.max) r.max = simplify(r.max);
    return r;
  }

 private:
  bool mentions_relaxed(const Expr& e) {
    bool found = false;
    for_each_expr(e, [&](const Expr& x) {
      if (const Variable* v = x->as<Variable>()) found = found || relaxed_.count(v) || lets_.count(v);
    });
    return found;
  }

  static std::optional<int64_t> as_const(const Expr& e) {
    int64_t v;
    if (e.get() != nullptr && is_const_int(e, &v)) return v;
    return std::nullopt;
  }

  static bool same(const SymInterval& s) { return s.min.get() != nullptr && s.min.get() == s.max.get(); }

  SymInterval compute(const Expr& e) {
    Type t = e->type;
    if (!t.is_scalar() || !(t.is_integer() || t.is_bool())) return {};
    switch (e->kind) {
      case ExprKind::Variable: {
        auto* v = e->as<Variable>();
        if (auto it = lets_.find(v); it != lets_.end()) return it->second;
        if (auto it = relaxed_.find(v); it != relaxed_.end()) return it->second;
        return {e, e};
      }
      case ExprKind::Let: {
        auto* l = e->as<Let>();
        lets_[l->var.get()] = get(l->value);
        SymInterval r = get(l->body);
        lets_.erase(l->var.get());
        return r;
      }
      case ExprKind::Select: {
        auto* s = e->as<Select>();
        SymInterval a = get(s->true_value), b = get(s->false_value);
        if (!a.is_bounded() || !b.is_bounded()) return {};
        return {min(a.min, b.min), max(a.max, b.max)};
      }
      case ExprKind::Cast: {
        auto* c = e->as<Cast>();
        Type from = c->value->type;
        bool widening = from.is_int() && t.is_int() && t.bits >= from.bits;
        if (!widening) return {};
        SymInterval v = get(c->value);
        return {v.min ? Cast::make(t, v.min) : nullptr, v.max ? Cast::make(t, v.max) : nullptr};
      }
      case ExprKind::Binary: return binary(e->as<Binary>());
      default: return {};
    }
  }

  SymInterval binary(const Binary* op) {
    if (!op->type.is_integer()) return {};
    SymInterval a = get(op->a), b = get(op->b);
    auto both = [](const Expr& x, const Expr& y) { return x.get() != nullptr && y.get() != nullptr; };
    switch (op->op) {
      case BinaryOp::Add:
        return {both(a.min, b.min) ? a.min + b.min : nullptr, both(a.max, b.max) ? a.max + b.max : nullptr};
      case BinaryOp::Sub:
        return {both(a.min, b.max) ? a.min - b.max : nullptr, both(a.max, b.min) ? a.max - b.min : nullptr};
      case BinaryOp::Mul: {
        if (same(b)) {
          if (auto c = as_const(b.min)) {
            if (*c >= 0) return {a.min ? a.min * b.min : nullptr, a.max ? a.max * b.min : nullptr};
            return {a.max ? a.max * b.min : nullptr, a.min ? a.min * b.min : nullptr};
          }
        }
        if (same(a)) {
          if (auto c = as_const(a.min)) {
            if (*c >= 0) return {b.min ? a.min * b.min : nullptr, b.max ? a.min * b.max : nullptr};
            return {b.max ? a.min * b.max : nullptr, b.min ? a.min * b.min : nullptr};
          }
        }
        if (!a.is_bounded() || !b.is_bounded()) return {};
        if (same(a) && same(b)) return {a.min * b.min, a.min * b.min};
        Expr p1 = a.min * b.min, p2 = a.min * b.max, p3 = a.max * b.min, p4 = a.max * b.max;
        return {min(min(p1, p2), min(p3, p4)), max(max(p1, p2), max(p3, p4))};
      }
      case BinaryOp::Div: {
        if (!same(b)) return {};
        auto c = as_const(b.min);
        bool positive = c ? *c > 0 : can_prove(b.min > 0);
        bool negative = c ? *c < 0 : false;
        if (positive)
          return {a.min ? a.min / b.min : nullptr, a.max ? a.max / b.min : nullptr};
        if (negative)
          return {a.max ? a.max / b.min : nullptr, a.min ? a.min / b.min : nullptr};
        return {};
      }
      case BinaryOp::Mod: {
        if (!same(b)) return {};
        auto c = as_const(b.min);
        bool positive = c ? *c > 0 : can_prove(b.min > 0);
        if (!positive) return {};
        if (a.is_bounded()) {
          // Within one period the modulo is monotone.
          Expr period_diff = simplify(a.max / b.min - a.min / b.min);
          if (is_const_int(period_diff, int64_t(0))) return {a.min % b.min, a.max % b.min};
        }
        return {make_zero(op->type), b.min - 1};
      }
      case BinaryOp::Min:
        return {both(a.min, b.min) ? min(a.min, b.min) : nullptr, both(a.max, b.max) ? min(a.max, b.max) : nullptr};
      case BinaryOp::Max:
        return {both(a.min, b.min) ? max(a.min, b.min) : nullptr, both(a.max, b.max) ? max(a.max, b.max) : nullptr};
      default: return {};
    }
  }

  static Expr make_zero(Type t) { return IntImm::make(t, 0); }

  const SymVarIntervals& relaxed_;
  std::unordered_map<const Variable*, SymInterval> lets_;
};

}  // namespace

Interval bounds_of(const Expr& e, const VarIntervals& vars) { return BoundsOf(vars).get(e); }

SymInterval sym_bounds_of(const Expr& e, const SymVarIntervals& relaxed) { return SymBoundsOf(relaxed).get(e); }

bool can_prove(const Expr& cond, const VarIntervals& vars) {
  TEXC_CHECK(cond.get() != nullptr && cond->type.is_bool()) << "can_prove of a non-bool expression";
  Expr s = simplify(cond, vars);
  if (is_const_int(s, int64_t(1))) return true;
  Interval b = bounds_of(s, vars);
  return b.is_point() && *b.min == 1;
}

Expr union_min(const Expr& a, const Expr& b) {
  int64_t d;
  if (is_const_int(simplify(b - a), &d)) return d >= 0 ? a : b;
  return simplify(min(a, b));
}

Expr union_max(const Expr& a, const Expr& b) {
  int64_t d;
  if (is_const_int(simplify(b - a), &d)) return d >= 0 ? b : a;
  return simplify(max(a, b));
}

}  // namespace texc
