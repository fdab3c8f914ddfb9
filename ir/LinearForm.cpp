#include "ir/LinearForm.h"

#include <algorithm>
#include <limits>

#include "ir/ExprOrder.h"
#include "ir/Substitute.h"

namespace texc {

namespace {

// The value v as a signed number of `bits` bits (two's complement).
int64_t wrap_signed(int bits, int64_t v) {
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  if ((u >> (bits - 1)) & 1) u |= ~mask;
  return int64_t(u);
}

uint64_t magnitude(int64_t v) { return v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v); }

std::optional<int64_t> const_int(const Expr& e) {
  int64_t v;
  if (is_const_int(e, &v)) return v;
  return std::nullopt;
}

}  // namespace

int64_t LinearForm::wrap(int64_t v) const { return wrap_signed(type.bits, v); }

void LinearForm::add_term(const Expr& atom, int64_t coeff) {
  for (size_t i = 0; i < terms.size(); ++i) {
    if (same_expr(terms[i].atom, atom)) {
      __int128 sum = __int128(terms[i].coeff) + coeff;
      terms[i].coeff = wrap(int64_t(uint64_t(sum)));
      if (terms[i].coeff != sum) exact = false;
      if (terms[i].coeff == 0) terms.erase(terms.begin() + i);
      return;
    }
  }
  int64_t wrapped = wrap(coeff);
  if (wrapped != coeff) exact = false;
  if (wrapped != 0) terms.push_back({atom, wrapped});
}

void LinearForm::add(const LinearForm& o, int64_t scale) {
  if (!o.exact) exact = false;
  for (const LinearTerm& t : o.terms) {
    __int128 product = __int128(t.coeff) * scale;
    if (product != int64_t(uint64_t(product))) exact = false;
    add_term(t.atom, int64_t(uint64_t(product)));
  }
  __int128 sum = __int128(constant) + __int128(o.constant) * scale;
  constant = wrap(int64_t(uint64_t(sum)));
  if (constant != sum) exact = false;
}

void LinearForm::scale(int64_t c) {
  LinearForm r{type, {}, 0, exact};
  r.add(*this, c);
  *this = r;
}

LinearForm linear_form(const Expr& e) {
  LinearForm l{e->type, {}, 0, true};
  if (auto c = const_int(e)) {
    l.constant = l.wrap(*c);
    return l;
  }
  if (const Binary* b = e->as<Binary>()) {
    if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) {
      l.add(linear_form(b->a), 1);
      l.add(linear_form(b->b), b->op == BinaryOp::Add ? 1 : -1);
      return l;
    }
    if (b->op == BinaryOp::Mul) {
      if (auto c = const_int(b->b)) {
        l.add(linear_form(b->a), *c);
        return l;
      }
      if (auto c = const_int(b->a)) {
        l.add(linear_form(b->b), *c);
        return l;
      }
    }
  }
  l.add_term(e, 1);
  return l;
}

Expr LinearForm::to_expr() const {
  Type t = type;
  std::vector<LinearTerm> sorted = terms;
  std::stable_sort(sorted.begin(), sorted.end(), [](const LinearTerm& x, const LinearTerm& y) {
    if ((x.coeff < 0) != (y.coeff < 0)) return x.coeff > 0;
    if (magnitude(x.coeff) != magnitude(y.coeff)) return magnitude(x.coeff) > magnitude(y.coeff);
    return compare_exprs(x.atom, y.atom) < 0;
  });
  auto scaled = [&](const Expr& atom, int64_t c) {
    return c == 1 ? atom : Binary::make(BinaryOp::Mul, atom, IntImm::make(t, c));
  };
  int64_t k = constant;
  Expr acc;
  for (const LinearTerm& term : sorted) {
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

std::optional<int64_t> linear_coefficient(const Expr& e, const Variable* v) {
  constexpr int64_t kMaxMagnitude = int64_t(1) << 40;
  if (!uses_var(e, v)) return 0;
  LinearForm l = linear_form(e);
  if (!l.exact) return std::nullopt;
  int64_t k = 0;
  for (const LinearTerm& t : l.terms) {
    if (t.atom.get() == v) k = t.coeff;
    else if (uses_var(t.atom, v)) return std::nullopt;
  }
  if (k > kMaxMagnitude || k < -kMaxMagnitude) return std::nullopt;
  return k;
}

}  // namespace texc
