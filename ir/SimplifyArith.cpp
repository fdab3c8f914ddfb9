// The simplifier's arithmetic rules.
//
// Guarantees (each result computes the same values as its input):
//  - Constants fold for every integer width with the IR's semantics: wrap-around at the declared
//    width, floor division and floor modulo (unsigned types: unsigned division); division by a
//    constant zero is left alone. Floating-point operations and casts fold only when every operand
//    is a constant (f32 results rounded to f32; f16 never folded); floats are never reassociated.
//  - Integer +, - and * by constants give the canonical linear form of ir/LinearForm.h
//    (`ii + io*8 + 3 - 1` -> `io*8 + ii + 2`, `x - x` -> `0`, `(a + b)*4` -> `a*4 + b*4`); on
//    indices, k*c*(r / c) + k*(r % c) folds back to k*r. A non-constant product orders its operands.
//  - Index (i64) division and modulo by a positive constant c split off the multiples of c:
//    `(x*c + y)/c` -> `x + y/c`, `(x*c + y)%c` -> `y%c`; `x/1` -> `x`, `x%1` -> `0`,
//    `(x/c1)/c2` -> `x/(c1*c2)`; with bounds, `y/c` -> `0` and `y%c` -> `y` when y is in [0, c).
//  - Broadcasts and ramps of scalars combine lane-wise (`ramp(b, s, n) + broadcast(x, n)` ->
//    `ramp(b + x, s, n)`).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "ir/ConstEval.h"
#include "ir/ExprOrder.h"
#include "ir/SimplifyInternal.h"

namespace texc::simplify_internal {

Expr Simplifier::fold_constants(BinaryOp op, const Expr& a, const Expr& b) {
  if (a->as<IntImm>() && b->as<IntImm>()) {
    auto v = eval_int(Binary::make(op, a, b));
    if (!v) return nullptr;
    return IntImm::make(is_comparison(op) ? Bool() : a->type, *v);
  }
  const FloatImm *x = const_float(a), *y = const_float(b);
  if (!x || !y || a->type.bits == 16) return nullptr;
  double p = x->value, q = y->value;
  bool single = a->type.bits == 32;
  auto real = [&](double r) { return FloatImm::make(a->type, single ? double(float(r)) : r); };
  switch (op) {
    case BinaryOp::Add: return real(p + q);
    case BinaryOp::Sub: return real(p - q);
    case BinaryOp::Mul: return real(p * q);
    case BinaryOp::Div: return real(p / q);
    case BinaryOp::Min:
      if (std::isnan(p) || std::isnan(q)) return nullptr;
      return real(std::min(p, q));
    case BinaryOp::Max:
      if (std::isnan(p) || std::isnan(q)) return nullptr;
      return real(std::max(p, q));
    case BinaryOp::EQ: return make_bool(p == q);
    case BinaryOp::NE: return make_bool(p != q);
    case BinaryOp::LT: return make_bool(p < q);
    case BinaryOp::LE: return make_bool(p <= q);
    case BinaryOp::GT: return make_bool(p > q);
    case BinaryOp::GE: return make_bool(p >= q);
    default: return nullptr;
  }
}

Expr Simplifier::mutate(const Cast* op, const Expr& self) {
  Expr v = mutate_expr(op->value);
  Type to = op->type, from = v->type;
  if (to == from) return v;
  if (to.is_scalar()) {
    if (auto c = const_int(v)) {
      if (to.is_bool()) return make_bool(*c != 0);
      if (to.is_integer()) return IntImm::make(to, *c);
      if (to.is_float() && to.bits != 16) {
        double d = from.is_uint() ? double(uint64_t(*c)) : double(*c);
        return FloatImm::make(to, d);
      }
    }
    if (const FloatImm* f = const_float(v)) {
      if (to.is_float() && to.bits != 16 && from.bits != 16) return FloatImm::make(to, f->value);
      if (to.is_integer() && from.bits != 16 && std::isfinite(f->value)) {
        double tr = std::trunc(f->value);
        Interval range = Interval::of_type(to);
        bool fits = to.bits >= 64 ? (to.is_uint() ? tr >= 0 && tr < 18446744073709551616.0
                                                  : tr >= -9223372036854775808.0 && tr < 9223372036854775808.0)
                                  : (tr >= double(*range.min) && tr <= double(*range.max));
        if (fits) return IntImm::make(to, to.is_uint() && tr >= 9223372036854775808.0
                                              ? int64_t(uint64_t(tr)) : int64_t(tr));
      }
    }
  }
  return v == op->value ? self : Cast::make(to, v);
}

// k*c*(r / c) + k*(r % c) -> k*r (floor division, c > 0), repeatedly: the index of a fused
// loop, (f / 3500)*3500 + (f % 3500) / 70*70 + f % 70, folds back to f. The partner of r / c is
// looked for in the form this simplifier gives r % c.
void Simplifier::fold_div_mod_pairs(LinearForm& l) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < l.terms.size() && !changed; ++i) {
      const Binary* d = l.terms[i].atom->as<Binary>();
      if (!d || d->op != BinaryOp::Div || !is_index_type(d->a->type)) continue;
      auto c = const_int(d->b);
      if (!c || *c <= 1 || l.terms[i].coeff % *c != 0) continue;
      int64_t k = l.terms[i].coeff / *c;
      Expr r = d->a;
      Expr partner = div_mod(BinaryOp::Mod, r, d->b);
      for (size_t j = 0; j < l.terms.size(); ++j) {
        if (j == i || l.terms[j].coeff != k || !same_expr(l.terms[j].atom, partner)) continue;
        l.terms.erase(l.terms.begin() + std::max(i, j));
        l.terms.erase(l.terms.begin() + std::min(i, j));
        l.add(linear_form(r), k);
        changed = true;
        break;
      }
    }
  }
}

Expr Simplifier::arithmetic(BinaryOp op, Expr a, Expr b) {
  LinearForm la = linear_form(a), lb = linear_form(b);
  if (op == BinaryOp::Add || op == BinaryOp::Sub) {
    la.add(lb, op == BinaryOp::Add ? 1 : -1);
    if (is_index_type(la.type)) fold_div_mod_pairs(la);
    return la.to_expr();
  }
  if (lb.is_const()) {
    la.scale(lb.constant);
    return la.to_expr();
  }
  if (la.is_const()) {
    lb.scale(la.constant);
    return lb.to_expr();
  }
  if (compare_exprs(a, b) > 0) std::swap(a, b);
  return Binary::make(BinaryOp::Mul, a, b);
}

// A chain of integer +, - and products by constants is simplified as one sum: its operands (what
// is none of these, of the same type) are simplified, then the linear form of the whole chain is
// built once. Simplifying
// each + of the chain on the way up instead re-built the form of everything below it: quadratic in
// the length of the chain, which a chain of splits makes as long as the schedule (a thousand
// `split(o, 1)` bind an index to a sum of a thousand loop variables).
Expr Simplifier::sum(const Binary* op, const Expr& self) {
  Type t = op->type;
  std::function<Expr(const Expr&)> operands = [&](const Expr& e) -> Expr {
    const Binary* b = e->as<Binary>();
    if (!b || b->type != t) return mutate_expr(e);
    bool scaled = b->op == BinaryOp::Mul && (b->a->as<IntImm>() || b->b->as<IntImm>());
    if (b->op != BinaryOp::Add && b->op != BinaryOp::Sub && !scaled) return mutate_expr(e);
    Expr x = b->a->as<IntImm>() ? b->a : operands(b->a), y = b->b->as<IntImm>() ? b->b : operands(b->b);
    return x == b->a && y == b->b ? e : Binary::make(b->op, x, y);
  };
  Expr chain = operands(self);
  LinearForm l = linear_form(chain);
  if (is_index_type(t)) fold_div_mod_pairs(l);
  Expr r = l.to_expr();
  return same_expr(r, self) ? self : r;
}

// x / c or x % c where the bounds of x decide the quotient: x in [m*c, m*c + c - 1].
std::optional<int64_t> Simplifier::fixed_quotient(const Expr& x, int64_t c) {
  Interval i = bounds(x);
  if (!i.is_bounded()) return std::nullopt;
  int64_t q = floor_div(*i.min, c);
  if (floor_div(*i.max, c) != q) return std::nullopt;
  return q;
}

Expr Simplifier::div_atom(const Expr& x, int64_t c) {
  if (const Binary* inner = x->as<Binary>(); inner && inner->op == BinaryOp::Div) {
    if (auto c1 = const_int(inner->b); c1 && *c1 > 0) {
      __int128 prod = __int128(*c1) * c;
      if (prod <= std::numeric_limits<int64_t>::max()) return div_atom(inner->a, int64_t(prod));
    }
  }
  return Binary::make(BinaryOp::Div, x, IntImm::make(x->type, c));
}

Expr Simplifier::mod_atom(const Expr& x, int64_t c) {
  if (const Binary* inner = x->as<Binary>(); inner && inner->op == BinaryOp::Mod) {
    if (auto c1 = const_int(inner->b); c1 && *c1 > 0 && *c1 % c == 0) return mod_atom(inner->a, c);
  }
  return Binary::make(BinaryOp::Mod, x, IntImm::make(x->type, c));
}

Expr Simplifier::div_mod(BinaryOp op, Expr a, Expr b) {
  Type t = a->type;
  bool is_div = op == BinaryOp::Div;
  auto c = const_int(b);
  if (c && *c == 1) return is_div ? a : IntImm::make(t, 0);
  bool bounded_type = !(t.is_uint() && t.bits >= 64);
  if (c && *c > 0 && is_index_type(t)) {
    // a = c*Q + R exactly, so a/c = Q + R/c and a%c = R%c (floor semantics).
    LinearForm la = linear_form(a), q{t, {}, 0}, r{t, {}, 0};
    for (const LinearTerm& term : la.terms) {
      if (term.coeff % *c == 0) q.add_term(term.atom, term.coeff / *c);
      else r.add_term(term.atom, is_div ? term.coeff : floor_mod(term.coeff, *c));
    }
    q.constant = floor_div(la.constant, *c);
    r.constant = floor_mod(la.constant, *c);
    Expr rest = r.to_expr();
    Expr part;
    if (auto m = fixed_quotient(rest, *c)) {
      if (!is_div) return arithmetic(BinaryOp::Sub, rest, IntImm::make(t, *m * *c));
      q.constant += *m;
      return q.to_expr();
    }
    if (!is_div) return mod_atom(rest, *c);
    part = div_atom(rest, *c);
    q.add_term(part, 1);
    return q.to_expr();
  }
  if (c && *c > 0 && bounded_type) {
    if (auto m = fixed_quotient(a, *c)) {
      if (is_div) return IntImm::make(t, *m);
      return arithmetic(BinaryOp::Sub, a, IntImm::make(t, *m * *c));
    }
    return Binary::make(op, a, b);
  }
  if (bounded_type) {
    Interval ia = bounds(a), ib = bounds(b);
    if (ia.min && *ia.min >= 0 && ia.max && ib.min && *ib.min > 0 && *ia.max < *ib.min)
      return is_div ? IntImm::make(t, 0) : a;
  }
  return Binary::make(op, a, b);
}

Expr Simplifier::vector_binary(BinaryOp op, Expr a, Expr b) {
  const Broadcast *ba = a->as<Broadcast>(), *bb = b->as<Broadcast>();
  if (ba && bb) return Broadcast::make(simplify_binary(op, ba->value, bb->value), ba->lanes);
  bool integer = a->type.is_integer();
  const Ramp *ra = a->as<Ramp>(), *rb = b->as<Ramp>();
  if (integer && ra && bb && (op == BinaryOp::Add || op == BinaryOp::Sub))
    return Ramp::make(simplify_binary(op, ra->base, bb->value), ra->stride, ra->lanes);
  if (integer && ba && rb && op == BinaryOp::Add)
    return Ramp::make(simplify_binary(op, ba->value, rb->base), rb->stride, rb->lanes);
  if (integer && ra && rb && (op == BinaryOp::Add || op == BinaryOp::Sub))
    return Ramp::make(simplify_binary(op, ra->base, rb->base), simplify_binary(op, ra->stride, rb->stride),
                      ra->lanes);
  if (integer && ra && bb && op == BinaryOp::Mul)
    return Ramp::make(simplify_binary(op, ra->base, bb->value), simplify_binary(op, ra->stride, bb->value),
                      ra->lanes);
  return Binary::make(op, a, b);
}

}  // namespace texc::simplify_internal
