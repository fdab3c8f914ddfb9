// Attained bounds of index expressions, used to prove out-of-bounds reads. Unlike ir/Bounds.h,
// which over-approximates (safe for sizing buffers), this says when both ends are really reached.
//
// attained_bounds_of(e, ranges) gives [lo, hi] containing every value of e when each variable ranges over
// its interval, and says whether both ends are attained (`exact`): true when e is built from
// constants and variables each used once, with +, -, * and floor division by positive constants
// (monotone in each variable) and % of a range lying within one period. Only exact intervals
// prove an out-of-bounds read. Unsupported nodes (loads, casts, selects) give nullopt.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>

#include "ir/IR.h"

namespace texc {

struct IndexInterval {
  int64_t lo = 0, hi = 0;
  bool exact = true;
  std::set<const Variable*> vars;  // the variables e depends on (for exactness)
};

using VarRanges = std::unordered_map<const Variable*, IndexInterval>;

std::optional<IndexInterval> attained_bounds_of(const Expr& e, const VarRanges& ranges);

}  // namespace texc
