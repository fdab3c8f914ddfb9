#include "ir/Simplify.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/ExprOrder.h"
#include "ir/IRMutator.h"
#include "ir/Substitute.h"

namespace texc {

Stmt make_no_op() { return Seq::make({}); }

bool is_no_op(const Stmt& s) {
  if (!s) return true;
  if (const Seq* q = s->as<Seq>()) return q->stmts.empty();
  if (const Evaluate* e = s->as<Evaluate>()) return e->value->as<IntImm>() || e->value->as<FloatImm>();
  return false;
}

namespace {

// The value v as a signed number of `bits` bits (two's complement).
int64_t wrap_signed(int bits, int64_t v) {
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  if ((u >> (bits - 1)) & 1) u |= ~mask;
  return int64_t(u);
}

bool is_index_type(Type t) { return t.is_int() && t.bits == 64 && t.is_scalar(); }

std::optional<int64_t> const_int(const Expr& e) {
  int64_t v;
  if (is_const_int(e, &v)) return v;
  return std::nullopt;
}

const FloatImm* const_float(const Expr& e) { return e ? e->as<FloatImm>() : nullptr; }

// ---------------------------------------------------------------------------------------------
// Linear forms: sum of coeff*atom plus a constant, over one integer type. Coefficients and the
// constant are kept wrapped to the type's width (signed interpretation), which is exact in
// wrap-around arithmetic.

struct Term {
  Expr atom;
  int64_t coeff;
};

struct Linear {
  Type type;
  std::vector<Term> terms;
  int64_t constant = 0;

  bool is_const() const { return terms.empty(); }
  int64_t wrap(int64_t v) const { return wrap_signed(type.bits, v); }
  void add_term(const Expr& atom, int64_t coeff) {
    for (size_t i = 0; i < terms.size(); ++i) {
      if (same_expr(terms[i].atom, atom)) {
        terms[i].coeff = wrap(int64_t(uint64_t(terms[i].coeff) + uint64_t(coeff)));
        if (terms[i].coeff == 0) terms.erase(terms.begin() + i);
        return;
      }
    }
    coeff = wrap(coeff);
    if (coeff != 0) terms.push_back({atom, coeff});
  }
  void add(const Linear& o, int64_t scale) {
    for (const Term& t : o.terms) add_term(t.atom, int64_t(uint64_t(t.coeff) * uint64_t(scale)));
    constant = wrap(int64_t(uint64_t(constant) + uint64_t(o.constant) * uint64_t(scale)));
  }
  void scale(int64_t c) {
    Linear r{type, {}, 0};
    r.add(*this, c);
    *this = r;
  }
};

Linear to_linear(const Expr& e) {
  Linear l{e->type, {}, 0};
  if (auto c = const_int(e)) {
    l.constant = l.wrap(*c);
    return l;
  }
  if (const Binary* b = e->as<Binary>()) {
    if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) {
      l.add(to_linear(b->a), 1);
      l.add(to_linear(b->b), b->op == BinaryOp::Add ? 1 : -1);
      return l;
    }
    if (b->op == BinaryOp::Mul) {
      if (auto c = const_int(b->b)) {
        l.add(to_linear(b->a), *c);
        return l;
      }
      if (auto c = const_int(b->a)) {
        l.add(to_linear(b->b), *c);
        return l;
      }
    }
  }
  l.add_term(e, 1);
  return l;
}

uint64_t magnitude(int64_t v) { return v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v); }

Expr from_linear(Linear l) {
  Type t = l.type;
  std::stable_sort(l.terms.begin(), l.terms.end(), [](const Term& x, const Term& y) {
    if ((x.coeff < 0) != (y.coeff < 0)) return x.coeff > 0;
    if (magnitude(x.coeff) != magnitude(y.coeff)) return magnitude(x.coeff) > magnitude(y.coeff);
    return compare_exprs(x.atom, y.atom) < 0;
  });
  auto scaled = [&](const Expr& atom, int64_t c) {
    return c == 1 ? atom : Binary::make(BinaryOp::Mul, atom, IntImm::make(t, c));
  };
  int64_t k = l.constant;
  Expr acc;
  for (const Term& term : l.terms) {
    if (!acc) {
      if (term.coeff > 0) {
        acc = scaled(term.atom, term.coeff);
      } else if (k != 0) {
        acc = IntImm::make(t, k);
        k = 0;
        acc = Binary::make(BinaryOp::Sub, acc, scaled(term.atom, int64_t(magnitude(term.coeff))));
      } else {
        acc = scaled(term.atom, term.coeff);
      }
      continue;
    }
    if (term.coeff > 0 || term.coeff == std::numeric_limits<int64_t>::min())
      acc = Binary::make(BinaryOp::Add, acc, scaled(term.atom, term.coeff));
    else
      acc = Binary::make(BinaryOp::Sub, acc, scaled(term.atom, -term.coeff));
  }
  if (!acc) return IntImm::make(t, k);
  if (k > 0 || k == std::numeric_limits<int64_t>::min()) return Binary::make(BinaryOp::Add, acc, IntImm::make(t, k));
  if (k < 0) return Binary::make(BinaryOp::Sub, acc, IntImm::make(t, -k));
  return acc;
}

BinaryOp negate_comparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::LT: return BinaryOp::GE;
    case BinaryOp::LE: return BinaryOp::GT;
    case BinaryOp::GT: return BinaryOp::LE;
    case BinaryOp::GE: return BinaryOp::LT;
    case BinaryOp::EQ: return BinaryOp::NE;
    case BinaryOp::NE: return BinaryOp::EQ;
    default: TEXC_UNREACHABLE();
  }
}

BinaryOp mirror_comparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::LT: return BinaryOp::GT;
    case BinaryOp::LE: return BinaryOp::GE;
    case BinaryOp::GT: return BinaryOp::LT;
    case BinaryOp::GE: return BinaryOp::LE;
    default: return op;
  }
}

// ---------------------------------------------------------------------------------------------

class Simplifier : public IRMutator {
 public:
  explicit Simplifier(const VarIntervals& vars) : ranges_(vars) {}

  Expr simplify_binary(BinaryOp op, Expr a, Expr b) {
    Type t = a->type;
    if (t.is_vector()) return vector_binary(op, a, b);
    if (auto folded = fold_constants(op, a, b)) return folded;
    if (t.is_float()) return Binary::make(op, a, b);
    if (op == BinaryOp::And || op == BinaryOp::Or) return logical(op, a, b);
    if (is_comparison(op)) return comparison(op, a, b);
    if (t.is_bool()) return Binary::make(op, a, b);
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Mul: return arithmetic(op, a, b);
      case BinaryOp::Div:
      case BinaryOp::Mod: return div_mod(op, a, b);
      case BinaryOp::Min:
      case BinaryOp::Max: return min_max(op, a, b);
      case BinaryOp::Shl:
      case BinaryOp::Shr:
        if (is_const_int(b, int64_t(0))) return a;
        return Binary::make(op, a, b);
      default: return Binary::make(op, a, b);
    }
  }

 protected:
  // --- scoped facts

  class ScopedRange {
   public:
    ScopedRange(Simplifier* s, const Variable* v, Interval i) : s_(s), v_(v) {
      auto it = s_->ranges_.find(v);
      if (it != s_->ranges_.end()) old_ = it->second;
      s_->ranges_[v] = i;
    }
    ~ScopedRange() {
      if (old_) s_->ranges_[v_] = *old_;
      else s_->ranges_.erase(v_);
    }

   private:
    Simplifier* s_;
    const Variable* v_;
    std::optional<Interval> old_;
  };

  class ScopedSubst {
   public:
    ScopedSubst(Simplifier* s, const Variable* v, Expr e) : s_(s), v_(v) {
      auto it = s_->subst_.find(v);
      if (it != s_->subst_.end()) old_ = it->second;
      s_->subst_[v] = std::move(e);
    }
    ~ScopedSubst() {
      if (old_) s_->subst_[v_] = old_;
      else s_->subst_.erase(v_);
    }

   private:
    Simplifier* s_;
    const Variable* v_;
    Expr old_;
  };

  Interval bounds(const Expr& e) { return bounds_of(e, ranges_); }

  std::optional<bool> prove(const Expr& cond) {
    if (auto c = const_int(cond)) return *c != 0;
    Interval i = bounds(cond);
    if (i.is_point()) return *i.min != 0;
    return std::nullopt;
  }

  // The range of a loop variable of a loop with the given (simplified) min and extent.
  Interval loop_range(const Expr& min, const Expr& extent) {
    Interval m = bounds(min), e = bounds(extent);
    Interval r;
    r.min = m.min;
    if (m.max && e.max && *e.max >= 1) {
      __int128 hi = __int128(*m.max) + *e.max - 1;
      if (hi <= std::numeric_limits<int64_t>::max()) r.max = int64_t(hi);
    }
    return r;
  }

  // --- constant folding

  Expr fold_constants(BinaryOp op, const Expr& a, const Expr& b) {
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

  // --- integer arithmetic

  // k*c*(r / c) + k*(r % c) -> k*r (floor division, c > 0), repeatedly: the index of a fused
  // loop, (f / 3500)*3500 + (f % 3500) / 70*70 + f % 70, folds back to f. The partner of r / c is
  // looked for in the form this simplifier gives r % c.
  void fold_div_mod_pairs(Linear& l) {
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
          l.add(to_linear(r), k);
          changed = true;
          break;
        }
      }
    }
  }

  Expr arithmetic(BinaryOp op, Expr a, Expr b) {
    Linear la = to_linear(a), lb = to_linear(b);
    if (op == BinaryOp::Add || op == BinaryOp::Sub) {
      la.add(lb, op == BinaryOp::Add ? 1 : -1);
      if (is_index_type(la.type)) fold_div_mod_pairs(la);
      return from_linear(la);
    }
    if (lb.is_const()) {
      la.scale(lb.constant);
      return from_linear(la);
    }
    if (la.is_const()) {
      lb.scale(la.constant);
      return from_linear(lb);
    }
    if (compare_exprs(a, b) > 0) std::swap(a, b);
    return Binary::make(BinaryOp::Mul, a, b);
  }

  // x / c or x % c where the bounds of x decide the quotient: x in [m*c, m*c + c - 1].
  std::optional<int64_t> fixed_quotient(const Expr& x, int64_t c) {
    Interval i = bounds(x);
    if (!i.is_bounded()) return std::nullopt;
    int64_t q = floor_div(*i.min, c);
    if (floor_div(*i.max, c) != q) return std::nullopt;
    return q;
  }

  Expr div_atom(const Expr& x, int64_t c) {
    if (const Binary* inner = x->as<Binary>(); inner && inner->op == BinaryOp::Div) {
      if (auto c1 = const_int(inner->b); c1 && *c1 > 0) {
        __int128 prod = __int128(*c1) * c;
        if (prod <= std::numeric_limits<int64_t>::max()) return div_atom(inner->a, int64_t(prod));
      }
    }
    return Binary::make(BinaryOp::Div, x, IntImm::make(x->type, c));
  }

  Expr mod_atom(const Expr& x, int64_t c) {
    if (const Binary* inner = x->as<Binary>(); inner && inner->op == BinaryOp::Mod) {
      if (auto c1 = const_int(inner->b); c1 && *c1 > 0 && *c1 % c == 0) return mod_atom(inner->a, c);
    }
    return Binary::make(BinaryOp::Mod, x, IntImm::make(x->type, c));
  }

  Expr div_mod(BinaryOp op, Expr a, Expr b) {
    Type t = a->type;
    bool is_div = op == BinaryOp::Div;
    auto c = const_int(b);
    if (c && *c == 1) return is_div ? a : IntImm::make(t, 0);
    bool bounded_type = !(t.is_uint() && t.bits >= 64);
    if (c && *c > 0 && is_index_type(t)) {
      // a = c*Q + R exactly, so a/c = Q + R/c and a%c = R%c (floor semantics).
      Linear la = to_linear(a), q{t, {}, 0}, r{t, {}, 0};
      for (const Term& term : la.terms) {
        if (term.coeff % *c == 0) q.add_term(term.atom, term.coeff / *c);
        else r.add_term(term.atom, is_div ? term.coeff : floor_mod(term.coeff, *c));
      }
      q.constant = floor_div(la.constant, *c);
      r.constant = floor_mod(la.constant, *c);
      Expr rest = from_linear(r);
      Expr part;
      if (auto m = fixed_quotient(rest, *c)) {
        if (!is_div) return arithmetic(BinaryOp::Sub, rest, IntImm::make(t, *m * *c));
        q.constant += *m;
        return from_linear(q);
      }
      if (!is_div) return mod_atom(rest, *c);
      part = div_atom(rest, *c);
      q.add_term(part, 1);
      return from_linear(q);
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

  Expr min_max(BinaryOp op, Expr a, Expr b) {
    bool is_min = op == BinaryOp::Min;
    if (a->as<IntImm>() && !b->as<IntImm>()) std::swap(a, b);
    if (same_expr(a, b)) return a;
    // a <= b ?
    std::optional<bool> a_le_b;
    Interval ia = bounds(a), ib = bounds(b);
    if (ia.max && ib.min && *ia.max <= *ib.min) a_le_b = true;
    else if (ib.max && ia.min && *ib.max <= *ia.min) a_le_b = false;
    else if (is_index_type(a->type)) {
      Linear d = to_linear(a);
      d.add(to_linear(b), -1);
      Interval id = bounds(from_linear(d));
      if (id.max && *id.max <= 0) a_le_b = true;
      else if (id.min && *id.min >= 0) a_le_b = false;
    }
    if (a_le_b) return (*a_le_b == is_min) ? a : b;
    // min(min(x, c1), c2) -> min(x, min(c1, c2))
    if (auto c2 = const_int(b)) {
      if (const Binary* inner = a->as<Binary>(); inner && inner->op == op && inner->b->as<IntImm>())
        return simplify_binary(op, inner->a, simplify_binary(op, inner->b, b));
    }
    if (!b->as<IntImm>() && compare_exprs(a, b) > 0) std::swap(a, b);
    return Binary::make(op, a, b);
  }

  Expr comparison(BinaryOp op, Expr a, Expr b) {
    Type t = a->type;
    if (t.is_bool() && (op == BinaryOp::EQ || op == BinaryOp::NE)) {
      if (a->as<IntImm>() && !b->as<IntImm>()) std::swap(a, b);
      if (auto c = const_int(b)) {
        bool keep = (*c != 0) == (op == BinaryOp::EQ);
        return keep ? a : simplify_not(a);
      }
      return Binary::make(op, a, b);
    }
    Expr cmp = Binary::make(op, a, b);
    if (auto p = prove(cmp)) return make_bool(*p);
    if (!is_index_type(t)) return cmp;
    Linear la = to_linear(a), lb = to_linear(b);
    Linear d = la;
    d.add(lb, -1);
    Expr diff = from_linear(d);
    Expr zero = IntImm::make(t, 0);
    if (auto p = prove(Binary::make(op, diff, zero))) return make_bool(*p);
    if (same_expr(a, b)) return make_bool(op == BinaryOp::EQ || op == BinaryOp::LE || op == BinaryOp::GE);
    // Move a's constant to the right: x + 1 < y + 3  ->  x < y + 2.
    if (la.constant != 0 && !la.is_const()) {
      int64_t k = la.constant;
      la.constant = 0;
      lb.constant = lb.wrap(int64_t(uint64_t(lb.constant) - uint64_t(k)));
      a = from_linear(la);
      b = from_linear(lb);
    }
    return Binary::make(op, a, b);
  }

  Expr logical(BinaryOp op, Expr a, Expr b) {
    bool is_and = op == BinaryOp::And;
    if (a->as<IntImm>() && !b->as<IntImm>()) std::swap(a, b);
    if (auto c = const_int(b)) {
      bool v = *c != 0;
      if (v == is_and) return a;  // x && true, x || false
      return make_bool(v);        // x && false, x || true
    }
    if (same_expr(a, b)) return a;
    if (auto p = prove(Binary::make(op, a, b))) return make_bool(*p);
    return Binary::make(op, a, b);
  }

  Expr simplify_not(const Expr& a) {
    if (auto c = const_int(a)) return make_bool(*c == 0);
    if (const Not* n = a->as<Not>()) return n->a;
    if (const Binary* b = a->as<Binary>(); b && is_comparison(b->op)) {
      bool exact = !b->a->type.is_float() || b->op == BinaryOp::EQ || b->op == BinaryOp::NE;
      if (exact) return simplify_binary(negate_comparison(b->op), b->a, b->b);
    }
    return Not::make(a);
  }

  // --- vectors: broadcasts and ramps of scalars

  Expr vector_binary(BinaryOp op, Expr a, Expr b) {
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

  // --- expression nodes

  Expr mutate(const Variable* op, const Expr& self) override {
    auto it = subst_.find(op);
    return it == subst_.end() ? self : it->second;
  }

  Expr mutate(const Binary* op, const Expr& self) override {
    Expr a = mutate_expr(op->a), b = mutate_expr(op->b);
    Expr r = simplify_binary(op->op, a, b);
    if (a == op->a && b == op->b && same_expr(r, self)) return self;
    return r;
  }

  Expr mutate(const Not* op, const Expr& self) override {
    Expr a = mutate_expr(op->a);
    if (a->type.is_vector()) return a == op->a ? self : Not::make(a);
    Expr r = simplify_not(a);
    return (a == op->a && same_expr(r, self)) ? self : r;
  }

  Expr mutate(const Select* op, const Expr& self) override {
    Expr c = mutate_expr(op->cond);
    if (c->type.is_scalar()) {
      if (auto p = prove(c)) return mutate_expr(*p ? op->true_value : op->false_value);
    }
    Expr t = mutate_expr(op->true_value), f = mutate_expr(op->false_value);
    if (same_expr(t, f)) return t;
    if (c == op->cond && t == op->true_value && f == op->false_value) return self;
    return Select::make(c, t, f);
  }

  Expr mutate(const Cast* op, const Expr& self) override {
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

  Expr mutate(const Ramp* op, const Expr& self) override {
    Expr base = mutate_expr(op->base), stride = mutate_expr(op->stride);
    if (is_const_int(stride, int64_t(0))) return Broadcast::make(base, op->lanes);
    if (base == op->base && stride == op->stride) return self;
    return Ramp::make(base, stride, op->lanes);
  }

  Expr mutate(const Let* op, const Expr& self) override {
    Expr value = mutate_expr(op->value);
    if (value->as<IntImm>() || value->as<FloatImm>() || value->as<Variable>()) {
      ScopedSubst s(this, op->var.get(), value);
      return mutate_expr(op->body);
    }
    Expr body;
    {
      ScopedSubst s(this, op->var.get(), op->var);
      ScopedRange r(this, op->var.get(), bounds(value));
      body = mutate_expr(op->body);
    }
    if (!uses_var(body, op->var.get())) return body;
    if (value == op->value && body == op->body) return self;
    return Let::make(op->var, value, body);
  }

  Expr mutate(const Reduce* op, const Expr& self) override {
    bool changed = false;
    auto axes = mutate_iter_vars(op->axes, &changed);
    std::vector<std::unique_ptr<ScopedRange>> scopes;
    for (const IterVar& a : axes) scopes.push_back(std::make_unique<ScopedRange>(this, a.var.get(), loop_range(a.min, a.extent)));
    Expr src = mutate_expr(op->source);
    scopes.clear();
    if (!changed && src == op->source) return self;
    return Reduce::make(op->reduce_kind, src, std::move(axes));
  }

  // --- statements

  // Facts that hold where cond is `truth`: intervals of variables compared with bounded values.
  void collect_facts(const Expr& cond, bool truth, std::vector<std::pair<const Variable*, Interval>>& out) {
    if (const Not* n = cond->as<Not>()) return collect_facts(n->a, !truth, out);
    const Binary* b = cond->as<Binary>();
    if (!b) return;
    if ((b->op == BinaryOp::And && truth) || (b->op == BinaryOp::Or && !truth)) {
      collect_facts(b->a, truth, out);
      collect_facts(b->b, truth, out);
      return;
    }
    if (!is_comparison(b->op) || !b->a->type.is_scalar() || !b->a->type.is_int()) return;
    BinaryOp op = truth ? b->op : negate_comparison(b->op);
    Expr var = b->a, other = b->b;
    if (!var->as<Variable>()) {
      std::swap(var, other);
      op = mirror_comparison(op);
    }
    const Variable* v = var->as<Variable>();
    if (!v || uses_var(other, v)) return;
    Interval o = bounds(other);
    Interval fact;
    switch (op) {
      case BinaryOp::LT: if (o.max) fact.max = *o.max - 1; break;
      case BinaryOp::LE: fact.max = o.max; break;
      case BinaryOp::GT: if (o.min) fact.min = *o.min + 1; break;
      case BinaryOp::GE: fact.min = o.min; break;
      case BinaryOp::EQ: fact = o; break;
      default: return;
    }
    out.push_back({v, fact});
  }

  Stmt mutate_with_facts(const Stmt& s, const Expr& cond, bool truth) {
    if (!s) return s;
    std::vector<std::pair<const Variable*, Interval>> facts;
    collect_facts(cond, truth, facts);
    std::vector<std::unique_ptr<ScopedRange>> scopes;
    for (auto& [v, fact] : facts) {
      auto it = ranges_.find(v);
      Interval known = it == ranges_.end() ? Interval::of_type(v->type) : it->second;
      scopes.push_back(std::make_unique<ScopedRange>(this, v, Interval::make_intersection(known, fact)));
    }
    Stmt out = mutate_stmt(s);
    // Restore innermost first: two facts on one variable (y >= 1 && y < 14) nest their saved ranges.
    while (!scopes.empty()) scopes.pop_back();
    return out;
  }

  Stmt mutate(const Store* op, const Stmt& self) override { return IRMutator::mutate(op, self); }

  Stmt mutate(const For* op, const Stmt& self) override {
    Expr mn = mutate_expr(op->min), ext = mutate_expr(op->extent);
    Interval e = bounds(ext);
    if (e.max && *e.max <= 0) return make_no_op();
    if (is_const_int(ext, int64_t(1)) && op->for_kind != ForKind::ThreadBound) {
      ScopedSubst s(this, op->var.get(), mn);
      return mutate_stmt(op->body);
    }
    Stmt body;
    {
      ScopedSubst s(this, op->var.get(), op->var);
      ScopedRange r(this, op->var.get(), loop_range(mn, ext));
      body = mutate_stmt(op->body);
    }
    if (is_no_op(body)) return make_no_op();
    if (mn == op->min && ext == op->extent && body == op->body) return self;
    return op->with_range(mn, ext, body);
  }

  Stmt mutate(const Block* op, const Stmt& self) override {
    bool changed = false;
    auto ivs = mutate_iter_vars(op->iter_vars, &changed);
    auto bindings = mutate_exprs(op->bindings, &changed);
    std::vector<std::unique_ptr<ScopedRange>> scopes;
    std::vector<std::unique_ptr<ScopedSubst>> unsubst;
    for (const IterVar& iv : ivs) {
      unsubst.push_back(std::make_unique<ScopedSubst>(this, iv.var.get(), iv.var));
      scopes.push_back(std::make_unique<ScopedRange>(this, iv.var.get(), loop_range(iv.min, iv.extent)));
    }
    Expr pred = op->predicate ? mutate_expr(op->predicate) : nullptr;
    if (pred) {
      if (auto p = prove(pred)) {
        if (!*p) return make_no_op();
        pred = nullptr;
      }
    }
    Stmt init = op->init ? mutate_stmt(op->init) : nullptr;
    Stmt body = mutate_stmt(op->body);
    if (!changed && pred == op->predicate && init == op->init && body == op->body) return self;
    return Block::make(op->stage, std::move(ivs), std::move(bindings), pred, init, body);
  }

  Stmt mutate(const Allocate* op, const Stmt& self) override {
    Stmt body = mutate_stmt(op->body);
    if (is_no_op(body)) return make_no_op();
    return body == op->body ? self : Allocate::make(op->buffer, body);
  }

  Stmt mutate(const Seq* op, const Stmt& self) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt& s : op->stmts) {
      Stmt m = mutate_stmt(s);
      if (m != s) changed = true;
      if (is_no_op(m)) {
        changed = true;
        continue;
      }
      out.push_back(m);
    }
    return changed ? Seq::make(std::move(out)) : self;
  }

  Stmt mutate(const IfThenElse* op, const Stmt& self) override {
    Expr c = mutate_expr(op->cond);
    if (auto p = prove(c)) {
      if (*p) return mutate_stmt(op->then_case);
      return op->else_case ? mutate_stmt(op->else_case) : make_no_op();
    }
    Stmt t = mutate_with_facts(op->then_case, c, true);
    Stmt e = op->else_case ? mutate_with_facts(op->else_case, c, false) : nullptr;
    if (e && is_no_op(e)) e = nullptr;
    if (is_no_op(t)) {
      if (!e) return make_no_op();
      return IfThenElse::make(simplify_not(c), e);
    }
    if (c == op->cond && t == op->then_case && e == op->else_case) return self;
    return IfThenElse::make(c, t, e);
  }

  Stmt mutate(const LetStmt* op, const Stmt& self) override {
    Expr value = mutate_expr(op->value);
    if (value->as<IntImm>() || value->as<FloatImm>() || value->as<Variable>()) {
      ScopedSubst s(this, op->var.get(), value);
      return mutate_stmt(op->body);
    }
    Stmt body;
    {
      ScopedSubst s(this, op->var.get(), op->var);
      ScopedRange r(this, op->var.get(), bounds(value));
      body = mutate_stmt(op->body);
    }
    if (is_no_op(body)) return make_no_op();
    if (!uses_var(body, op->var.get())) return body;
    if (value == op->value && body == op->body) return self;
    return LetStmt::make(op->var, value, body);
  }

  Stmt mutate(const Evaluate* op, const Stmt& self) override {
    Expr v = mutate_expr(op->value);
    if (v->as<IntImm>() || v->as<FloatImm>()) return make_no_op();
    return v == op->value ? self : Evaluate::make(v);
  }

 public:
  using IRMutator::mutate_expr;
  using IRMutator::mutate_stmt;

 private:
  VarIntervals ranges_;
  // Variables replaced while simplifying (lets of constants, loops of extent 1); a variable mapped
  // to itself shadows an outer substitution.
  std::unordered_map<const Variable*, Expr> subst_;
};

}  // namespace

Expr simplify(const Expr& e, const VarIntervals& vars) {
  if (!e) return e;
  return Simplifier(vars).mutate_expr(e);
}

Stmt simplify(const Stmt& s) { return simplify(s, VarIntervals{}); }

Stmt simplify(const Stmt& s, const VarIntervals& vars) {
  if (!s) return s;
  Stmt r = Simplifier(vars).mutate_stmt(s);
  return r ? r : make_no_op();
}

}  // namespace texc
