#include "frontend/InputDomain.h"

#include <cmath>

#include <fmt/format.h>

#include "frontend/ConstExpr.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

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
