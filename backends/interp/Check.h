// Check: compares one output tensor of an op with the reference interpreter.
//
// Tolerance is scaled to the element type: integers and bool must match exactly; a float element
// a with reference b passes when |a - b| <= tol * max(|b|, mean|ref|), where mean|ref| is the mean
// magnitude of the checked reference values — so long reductions, whose rounding error grows with
// the size of the sum rather than of each element, and results that cancel to near zero are judged
// against the output's scale. tol is 1e-4 for f32, 1e-2 for f16, 1e-9 for f64. NaN matches only
// NaN; an infinity only the same infinity.
//
// An output of at most `full_check_limit` elements is checked whole; a larger one on a seeded
// random sample of `sample_points` points (plus its first and last element), each evaluated by the
// reference point-wise. A reference failure (InterpError, e.g. an out-of-bounds read) fails the
// check with its message.
#pragma once
#include <cstdint>
#include <string>

#include "backends/interp/ReferenceInterpreter.h"
#include "backends/interp/Tensor.h"

namespace texc {

struct CheckOptions {
  int64_t full_check_limit = 100000;
  int64_t sample_points = 1000;
  uint64_t seed = 0;
};

struct CheckResult {
  bool passed = true;
  double max_rel_err = 0;     // max over checked points of |a - b| / max(|b|, mean|ref|)
  int64_t points_checked = 0;
  int64_t mismatches = 0;
  bool sampled = false;       // false: every element was checked
  std::string message;        // why it failed: the first mismatching element, or the reference's error
};

/// The relative tolerance for element type t (0 for integers and bool).
double tolerance_for(Type t);

/// Checks `actual` against the reference's values of output `name`.
CheckResult check_output(ReferenceInterpreter& reference, const std::string& name, const Tensor& actual,
                         const CheckOptions& options = {});

}  // namespace texc
