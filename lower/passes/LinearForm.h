// linear_coefficient: how an integer expression depends on one variable, when it does so linearly.
//
// Shared by partition_loops (solving guards for a loop variable) and vectorize_loops (proving that
// the lanes of a vectorized loop store to distinct elements).
#pragma once
#include <cstdint>
#include <optional>

#include "ir/IR.h"

namespace texc {

/// The coefficient k of v in e when e = k*v + (terms without v), built from +, - and products by
/// constants (0 when e does not mention v); nullopt when v appears otherwise (inside /, %, min,
/// a product of two non-constants, ...) or a coefficient exceeds 2^40 in magnitude.
std::optional<int64_t> linear_coefficient(const Expr& e, const Variable* v);

}  // namespace texc
