// Interval analysis of integer expressions.
//
// bounds_of(e, vars) gives an inclusive interval [min, max] that contains every value e can take when
// each variable in `vars` ranges over its interval (other variables are unknown). The result is
// always sound: a side is nullopt ("unbounded") whenever it cannot be proven. Integer / and % are
// floor division and floor modulo; results of types narrower than 64 bits are clamped to the type's
// range when the arithmetic could wrap. Index (i64) arithmetic is assumed not to overflow.
//
// sym_bounds_of(e, relaxed) is the symbolic variant used by bound inference: it relaxes only the
// listed variables over their (possibly symbolic) ranges and keeps every other variable as is. A
// null side of a SymInterval means unbounded. Results are simplified.
//
// can_prove(cond, vars) is true only if cond holds for every value of the variables in `vars`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/IR.h"

namespace texc {

/// An inclusive integer interval; a nullopt side is unbounded.
struct Interval {
  std::optional<int64_t> min, max;

  static Interval point(int64_t v) { return {v, v}; }
  static Interval range(int64_t lo, int64_t hi) { return {lo, hi}; }
  static Interval everything() { return {std::nullopt, std::nullopt}; }
  /// The values a scalar of type t can hold (bool: [0, 1]); everything for 64-bit types.
  static Interval of_type(Type t);

  bool is_bounded() const { return min.has_value() && max.has_value(); }
  bool is_point() const { return is_bounded() && *min == *max; }
  bool is_everything() const { return !min && !max; }
  bool contains(int64_t v) const { return (!min || *min <= v) && (!max || v <= *max); }
  /// True if every value of this interval is in `other`.
  bool is_within(const Interval& other) const;
  /// The smallest interval containing both.
  static Interval make_union(const Interval& a, const Interval& b);
  /// The values in both (may be empty: min > max).
  static Interval make_intersection(const Interval& a, const Interval& b);
  bool operator==(const Interval&) const = default;
  /// "[0, 7]", "[-inf, 3]".
  std::string str() const;
};

using VarIntervals = std::unordered_map<const Variable*, Interval>;

/// Bounds of an integer or bool expression (bool: within [0, 1]). Unknown variables are unbounded
/// (or their type's range). Vector expressions: the bounds over all lanes.
Interval bounds_of(const Expr& e, const VarIntervals& vars = {});

/// A symbolic inclusive interval; a null side is unbounded.
struct SymInterval {
  Expr min, max;
  bool is_bounded() const { return min.get() != nullptr && max.get() != nullptr; }
};

using SymVarIntervals = std::unordered_map<const Variable*, SymInterval>;

/// Symbolic bounds of an integer expression, relaxing only the variables in `relaxed`.
SymInterval sym_bounds_of(const Expr& e, const SymVarIntervals& relaxed);

/// The union of two symbolic bounds, per end: min(a, b) / max(a, b), folded to one side when
/// their difference simplifies to a constant (io*8 vs io*8 + 3).
Expr union_min(const Expr& a, const Expr& b);
Expr union_max(const Expr& a, const Expr& b);

/// True only if the bool expression cond provably holds for all values of the variables in vars.
bool can_prove(const Expr& cond, const VarIntervals& vars = {});

}  // namespace texc
