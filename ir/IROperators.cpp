#include "ir/IROperators.h"

#include "ir/Diagnostics.h"

namespace texc {

Expr make_const(Type t, double v) {
  Expr c = t.is_float() ? FloatImm::make(t.element_of(), v) : IntImm::make(t.element_of(), int64_t(v));
  return t.lanes > 1 ? Broadcast::make(c, t.lanes) : c;
}

static Expr bin(BinaryOp op, Expr a, Expr b) {
  // A scalar constant meets a vector: broadcast it.
  if (a->type.lanes != b->type.lanes) {
    if (a->type.is_scalar()) a = Broadcast::make(a, b->type.lanes);
    else if (b->type.is_scalar()) b = Broadcast::make(b, a->type.lanes);
  }
  return Binary::make(op, std::move(a), std::move(b));
}

Expr operator+(Expr a, Expr b) { return bin(BinaryOp::Add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return bin(BinaryOp::Sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return bin(BinaryOp::Mul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return bin(BinaryOp::Div, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return bin(BinaryOp::Mod, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return bin(BinaryOp::LT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return bin(BinaryOp::LE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return bin(BinaryOp::GT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return bin(BinaryOp::GE, std::move(a), std::move(b)); }
Expr logical_and(Expr a, Expr b) { return bin(BinaryOp::And, std::move(a), std::move(b)); }
Expr logical_or(Expr a, Expr b) { return bin(BinaryOp::Or, std::move(a), std::move(b)); }
Expr logical_not(Expr a) { return Not::make(std::move(a)); }
Expr min(Expr a, Expr b) { return bin(BinaryOp::Min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return bin(BinaryOp::Max, std::move(a), std::move(b)); }
Expr eq(Expr a, Expr b) { return bin(BinaryOp::EQ, std::move(a), std::move(b)); }
Expr ne(Expr a, Expr b) { return bin(BinaryOp::NE, std::move(a), std::move(b)); }

std::vector<Expr> conjuncts(const Expr& e) {
  if (!e) return {};
  if (const Binary* b = e->as<Binary>(); b && b->op == BinaryOp::And) {
    std::vector<Expr> out = conjuncts(b->a), rest = conjuncts(b->b);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
  return {e};
}

}  // namespace texc
