#include "lower/passes/LinearForm.h"

#include "ir/Substitute.h"

namespace texc {

namespace {
constexpr int64_t kMaxMagnitude = int64_t(1) << 40;
bool too_large(__int128 k) { return k > kMaxMagnitude || k < -kMaxMagnitude; }
}  // namespace

std::optional<int64_t> linear_coefficient(const Expr& e, const Variable* v) {
  if (e.get() == v) return 1;
  if (!uses_var(e, v)) return 0;
  const Binary* b = e->as<Binary>();
  if (!b) return std::nullopt;
  if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) {
    auto ka = linear_coefficient(b->a, v), kb = linear_coefficient(b->b, v);
    if (!ka || !kb) return std::nullopt;
    __int128 k = b->op == BinaryOp::Add ? __int128(*ka) + *kb : __int128(*ka) - *kb;
    if (too_large(k)) return std::nullopt;
    return int64_t(k);
  }
  if (b->op == BinaryOp::Mul) {
    int64_t c;
    std::optional<int64_t> k;
    if (is_const_int(b->b, &c)) k = linear_coefficient(b->a, v);
    else if (is_const_int(b->a, &c)) k = linear_coefficient(b->b, v);
    if (!k || too_large(c)) return std::nullopt;
    __int128 p = __int128(*k) * c;
    if (too_large(p)) return std::nullopt;
    return int64_t(p);
  }
  return std::nullopt;
}

}  // namespace texc
