// Evaluation of integer/bool expressions whose variables all have known values (params, knobs,
// sizes). Integer division and modulo are floor division and floor modulo.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "ir/IR.h"

namespace texc {

using VarValues = std::unordered_map<const Variable*, int64_t>;

/// The value of e, or nullopt if e reads an unknown variable, a buffer, divides by zero, or is
/// not an integer/bool expression.
std::optional<int64_t> eval_int(const Expr& e, const VarValues& values = {});

/// Floor division and modulo on int64 (b != 0).
int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

}  // namespace texc
