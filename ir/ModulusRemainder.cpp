#include "ir/ModulusRemainder.h"

#include <algorithm>
#include <numeric>

namespace texc {

namespace {

constexpr ModulusRemainder kUnknown{1, 0};

ModulusRemainder normalized(int64_t m, int64_t r) {
  if (m < 0) m = -m;
  if (m == 0) return {0, r};
  r %= m;
  if (r < 0) r += m;
  return {m, r};
}

// gcd where a modulus of 0 (an exact value) is neutral.
int64_t combine_moduli(int64_t a, int64_t b) { return std::gcd(a, b); }

ModulusRemainder add(ModulusRemainder a, ModulusRemainder b, bool subtract) {
  int64_t r;
  if (subtract ? __builtin_sub_overflow(a.remainder, b.remainder, &r) : __builtin_add_overflow(a.remainder, b.remainder, &r))
    return kUnknown;
  return normalized(combine_moduli(a.modulus, b.modulus), r);
}

ModulusRemainder multiply(ModulusRemainder a, ModulusRemainder b) {
  // (ma*i + ra) * (mb*j + rb) = ma*mb*i*j + ma*rb*i + mb*ra*j + ra*rb
  int64_t mm, m_arb, m_bra, rr;
  if (__builtin_mul_overflow(a.modulus, b.modulus, &mm) || __builtin_mul_overflow(a.modulus, b.remainder, &m_arb) ||
      __builtin_mul_overflow(b.modulus, a.remainder, &m_bra) || __builtin_mul_overflow(a.remainder, b.remainder, &rr))
    return kUnknown;
  return normalized(std::gcd(std::gcd(mm, m_arb), m_bra), rr);
}

class Analysis {
 public:
  explicit Analysis(const KnownModuli& known) : known_(known) {}

  ModulusRemainder of(const Expr& e) {
    if (!e || !e->type.is_scalar() || !e->type.is_integer()) return kUnknown;
    if (const IntImm* imm = e->as<IntImm>()) return {0, imm->value};
    if (const Variable* var = e->as<Variable>()) {
      auto it = known_.find(var);
      return it == known_.end() ? kUnknown : it->second;
    }
    if (const Binary* bin = e->as<Binary>()) {
      switch (bin->op) {
        case BinaryOp::Add: return add(of(bin->a), of(bin->b), false);
        case BinaryOp::Sub: return add(of(bin->a), of(bin->b), true);
        case BinaryOp::Mul: return multiply(of(bin->a), of(bin->b));
        case BinaryOp::Shl: {
          int64_t shift;
          if (is_const_int(bin->b, &shift) && shift >= 0 && shift < 31) return multiply(of(bin->a), {0, int64_t(1) << shift});
          return kUnknown;
        }
        default: return kUnknown;
      }
    }
    if (const Cast* cast = e->as<Cast>()) {
      Type from = cast->value->type;
      bool widening = from.is_integer() && from.bits <= e->type.bits && (from.is_int() == e->type.is_int() || from.bits < e->type.bits);
      return widening ? of(cast->value) : kUnknown;
    }
    if (const Let* let = e->as<Let>()) {
      KnownModuli inner = known_;
      inner[let->var.get()] = of(let->value);
      return Analysis(inner).of(let->body);
    }
    return kUnknown;
  }

 private:
  const KnownModuli& known_;
};

int64_t lowest_power_of_two_factor(int64_t v) { return v == 0 ? 0 : (v & -v); }

}  // namespace

ModulusRemainder modulus_remainder(const Expr& e, const KnownModuli& known) { return Analysis(known).of(e); }

int64_t provable_alignment(const ModulusRemainder& mr, int64_t element_bytes, int64_t cap) {
  // byte offset == r*s (mod m*s): every power of two dividing both m*s and r*s divides the offset.
  int64_t m_bytes = lowest_power_of_two_factor(mr.modulus) * lowest_power_of_two_factor(element_bytes);
  int64_t r_bytes = lowest_power_of_two_factor(mr.remainder) * lowest_power_of_two_factor(element_bytes);
  int64_t align = cap;
  if (m_bytes != 0) align = std::min(align, m_bytes);
  if (r_bytes != 0) align = std::min(align, r_bytes);
  return std::max<int64_t>(align, 1);
}

}  // namespace texc
