// A comparison of i64 values that is linear in one variable, normalised to `k*v + rest < bound`
// (k != 0, rest free of v): the form partition_loops solves for a loop's steady range and
// unswitch_ragged_vectors for the lanes of a tail guard.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/IR.h"
#include "ir/IROperators.h"
#include "ir/LinearForm.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace texc {

struct LinearComparison {
  int64_t k;
  Expr rest;
  int64_t bound;
};

/// `cond` as k*v + rest < bound; nullopt unless cond is <, <=, > or >= of i64 values whose
/// difference is linear in v with a non-zero coefficient.
inline std::optional<LinearComparison> linear_comparison(const Expr& cond, const Variable* v) {
  const Binary* b = cond->as<Binary>();
  if (!b || !is_comparison(b->op) || b->a->type != Index()) return std::nullopt;
  Expr d;  // cond <=> d < bound
  int64_t bound;
  switch (b->op) {
    case BinaryOp::LT: d = b->a - b->b, bound = 0; break;
    case BinaryOp::LE: d = b->a - b->b, bound = 1; break;
    case BinaryOp::GT: d = b->b - b->a, bound = 0; break;
    case BinaryOp::GE: d = b->b - b->a, bound = 1; break;
    default: return std::nullopt;
  }
  auto k = linear_coefficient(d, v);
  if (!k || *k == 0) return std::nullopt;
  return LinearComparison{*k, simplify(substitute(d, VarMap{{v, make_int(0)}})), bound};
}

}  // namespace texc
