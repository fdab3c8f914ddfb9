#include "ir/LinearForm.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

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

namespace {

// Adds terms to a LinearForm in time O(log n) each when many are added to a large form: finds a
// term by its atom with a scan, and once a few scans have gone through many terms, through an
// index ordered by compare_exprs, built once (adding one term to a large form stays one scan).
// A term whose coefficient becomes 0 stays in place until finish() drops it, so positions in the
// index stay valid; the terms keep the order in which their atoms first came.
class TermAdder {
 public:
  explicit TermAdder(LinearForm& l) : l_(l) {}

  /// Adds coeff*atom (coeff as a mathematical value; wrapped to the type here).
  void add(const Expr& atom, __int128 coeff) {
    int64_t wrapped = l_.wrap(int64_t(uint64_t(coeff)));
    if (wrapped != coeff) l_.exact = false;
    if (int64_t* c = find(atom)) {
      __int128 sum = __int128(*c) + wrapped;
      *c = l_.wrap(int64_t(uint64_t(sum)));
      if (*c != sum) l_.exact = false;
      return;
    }
    if (wrapped == 0) return;
    l_.terms.push_back({atom, wrapped});
    if (indexed_) index_.emplace(atom, l_.terms.size() - 1);
  }
  void add_constant(__int128 value) {
    __int128 sum = __int128(l_.constant) + value;
    l_.constant = l_.wrap(int64_t(uint64_t(sum)));
    if (l_.constant != sum) l_.exact = false;
  }
  /// Drops the terms whose coefficient became 0.
  void finish() {
    l_.terms.erase(std::remove_if(l_.terms.begin(), l_.terms.end(), [](const LinearTerm& t) { return t.coeff == 0; }),
                   l_.terms.end());
  }

 private:
  // Past this many terms, and this many scans of them, lookups go through the index.
  static constexpr size_t kScanLimit = 16;
  struct AtomLess {
    bool operator()(const Expr& a, const Expr& b) const { return compare_exprs(a, b) < 0; }
  };

  int64_t* find(const Expr& atom) {
    if (!indexed_ && l_.terms.size() > kScanLimit && ++scans_ > kScanLimit) {
      for (size_t i = 0; i < l_.terms.size(); ++i) index_.emplace(l_.terms[i].atom, i);
      indexed_ = true;
    }
    if (indexed_) {
      auto it = index_.find(atom);
      return it == index_.end() ? nullptr : &l_.terms[it->second].coeff;
    }
    for (LinearTerm& t : l_.terms)
      if (same_expr(t.atom, atom)) return &t.coeff;
    return nullptr;
  }

  LinearForm& l_;
  bool indexed_ = false;
  size_t scans_ = 0;
  std::map<Expr, size_t, AtomLess> index_;
};

// Adds scale*e to the form, looking through +, - and products by constants; scale is already
// wrapped to the type (and the form marked inexact if that wrapped).
void accumulate(TermAdder& adder, LinearForm& l, const Expr& e, int64_t scale) {
  if (auto c = const_int(e)) {
    adder.add_constant(__int128(l.wrap(*c)) * scale);
    return;
  }
  if (const Binary* b = e->as<Binary>()) {
    if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) {
      accumulate(adder, l, b->a, scale);
      int64_t s = scale;
      if (b->op == BinaryOp::Sub) {
        __int128 negated = -__int128(scale);
        s = l.wrap(int64_t(uint64_t(negated)));
        if (s != negated) l.exact = false;
      }
      accumulate(adder, l, b->b, s);
      return;
    }
    if (b->op == BinaryOp::Mul) {
      const Expr* factor = nullptr;
      std::optional<int64_t> c = const_int(b->b);
      if (c) factor = &b->a;
      else if ((c = const_int(b->a))) factor = &b->b;
      if (factor) {
        __int128 product = __int128(scale) * *c;
        int64_t s = l.wrap(int64_t(uint64_t(product)));
        if (s != product) l.exact = false;
        accumulate(adder, l, *factor, s);
        return;
      }
    }
  }
  adder.add(e, scale);
}

}  // namespace

void LinearForm::add_term(const Expr& atom, int64_t coeff) {
  TermAdder adder(*this);
  adder.add(atom, coeff);
  adder.finish();
}

void LinearForm::add(const LinearForm& o, int64_t scale) {
  if (!o.exact) exact = false;
  TermAdder adder(*this);
  for (const LinearTerm& t : o.terms) adder.add(t.atom, __int128(t.coeff) * scale);
  adder.add_constant(__int128(o.constant) * scale);
  adder.finish();
}

void LinearForm::scale(int64_t c) {
  // The atoms stay distinct: only a coefficient that becomes 0 is dropped.
  LinearForm r{type, {}, 0, exact};
  TermAdder adder(r);
  for (const LinearTerm& t : terms) {
    __int128 product = __int128(t.coeff) * c;
    int64_t wrapped = wrap(int64_t(uint64_t(product)));
    if (wrapped != product) r.exact = false;
    if (wrapped != 0) r.terms.push_back({t.atom, wrapped});
  }
  adder.add_constant(__int128(constant) * c);
  *this = std::move(r);
}

LinearForm linear_form(const Expr& e) {
  LinearForm l{e->type, {}, 0, true};
  TermAdder adder(l);
  accumulate(adder, l, e, 1);
  adder.finish();
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
