#include "frontend/InputDomain.h"

#include <cmath>

#include <fmt/format.h>

#include "frontend/ConstExpr.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

/// A compile-time number: a float literal, or + - * / and unary - over numbers; anything else is an
/// integer expression (eval_const_int, which locates what it cannot evaluate).
double eval_const_number(const ast::Expr& e, const Scope& scope) {
  if (auto* f = e.as<ast::FloatLit>()) return f->value;
  if (auto* u = e.as<ast::Unary>(); u && u->op == "-") return -eval_const_number(*u->operand, scope);
  if (auto* b = e.as<ast::Binary>(); b && (b->op == "+" || b->op == "-" || b->op == "*" || b->op == "/")) {
    double x = eval_const_number(*b->lhs, scope), y = eval_const_number(*b->rhs, scope);
    bool is_float = std::fmod(x, 1.0) != 0 || std::fmod(y, 1.0) != 0 || b->lhs->as<ast::FloatLit>() ||
                    b->rhs->as<ast::FloatLit>();
    if (!is_float) return double(eval_const_int(e, scope));  // integer arithmetic: floor division, checks
    if (b->op == "+") return x + y;
    if (b->op == "-") return x - y;
    if (b->op == "*") return x * y;
    return x / y;
  }
  return double(eval_const_int(e, scope));
}

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

std::pair<double, double> elaborate_input_domain(const ast::OpParam& param, Type type, const Scope& scope) {
  const std::string& name = param.name.text;
  double lo = eval_const_number(*param.domain_lo, scope), hi = eval_const_number(*param.domain_hi, scope);
  if (!type.is_float()) {
    for (auto [bound, loc] : {std::pair{lo, param.domain_lo->loc}, std::pair{hi, param.domain_hi->loc}})
      if (std::isfinite(bound) && std::floor(bound) != bound)
        throw_error(DiagId::InputDomainNotWhole, loc, name, type.str(), number_text(bound));
  }
  bool holds_a_value = std::isfinite(lo) && std::isfinite(hi) && lo < hi;
  if (holds_a_value && !type.is_float()) {
    double type_lo = type.is_bool() || type.is_uint() ? 0 : -std::ldexp(1.0, type.bits - 1);
    double type_hi = type.is_bool() ? 1 : type.is_uint() ? std::ldexp(1.0, type.bits) - 1 : std::ldexp(1.0, type.bits - 1) - 1;
    holds_a_value = std::max(lo, type_lo) <= std::min(hi - 1, type_hi);
  }
  if (!holds_a_value)
    throw_error(DiagId::InputDomainEmpty, param.domain_loc, name, number_text(lo), number_text(hi), type.str());
  return {lo, hi};
}

}  // namespace texc
