// Check: compares one output tensor of an op with the reference interpreter.
//
// Tolerance is scaled to the element type and to the length of the accumulations behind the output:
// integers and bool must match exactly; a float element a with reference b passes when
// |a - b| <= tol * max(|b|, mean|ref|), where mean|ref| is the mean magnitude of the checked
// reference values — so long reductions, whose rounding error grows with the size of the sum rather
// than of each element, and results that cancel to near zero are judged against the output's scale.
// tol = max(base, n * u): base is 1e-4 for f32, 1e-2 for f16, 1e-9 for f64; u is the element type's
// unit roundoff (2^-24, 2^-11, 2^-53) and n the accumulation length of the output
// (accumulation_length), so n * u is the classical worst-case bound of a recursive sum of n terms
// computed in the element type, whatever the order. A sum of 10^6 f32 terms may be 6% off; a sum
// of 1000 f32 terms is held to 1e-4. NaN matches only NaN; an infinity only the same infinity.
//
// An output of at most `full_check_limit` elements is checked whole; a larger one on a seeded
// random sample of `sample_points` points (plus its first and last element), each evaluated by the
// reference point-wise. A reference failure (InterpError, e.g. an out-of-bounds read) fails the
// check with its message.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backends/interp/ReferenceInterpreter.h"
#include "backends/interp/Tensor.h"

namespace texc {

struct CheckOptions {
  int64_t full_check_limit = 100000;
  int64_t sample_points = 1000;
  uint64_t seed = 0;
  /// The output's accumulation length (accumulation_length); 0 or 1: no reduction behind it.
  int64_t accumulation_length = 0;
};

struct CheckResult {
  bool passed = true;
  double max_rel_err = 0;     // max over checked points of |a - b| / max(|b|, mean|ref|)
  int64_t points_checked = 0;
  int64_t mismatches = 0;
  bool sampled = false;       // false: every element was checked
  int64_t nonfinite_expected = 0;  // checked points whose reference value is NaN or infinite
  std::string message;        // why it failed: the first mismatching element, or the reference's error
};

/// The relative tolerance for element type t (0 for integers and bool) of a value that went through
/// accumulations of `accumulation_length` terms in all (see the file comment).
double tolerance_for(Type t, int64_t accumulation_length = 0);

/// How many terms stage `name` of `op` accumulates, along its longest chain of reductions: the terms
/// of every sum/prod in its body (the product of the reduction's extents; max and min do not round)
/// plus the largest accumulation length among the stages it reads. 0 for an element-wise stage.
int64_t accumulation_length(const OpDef& op, const std::string& name);

/// The reference's values of output `name` at the points a check looks at (every element, or a
/// sample), computed before the op runs: a read the reference proves out of bounds is then known
/// before any compiled code executes.
struct ExpectedOutput {
  std::string name;
  Type dtype = Float(32);
  std::vector<int64_t> shape;
  std::vector<int64_t> points;  // flat (row-major) indices, ascending
  std::vector<Value> values;    // the reference's value at each point
  bool sampled = false;
  std::string error;            // "reference: ..." when the reference failed (an InterpError), else ""
};
ExpectedOutput expected_output(ReferenceInterpreter& reference, const std::string& name,
                               const CheckOptions& options = {});
/// Checks `actual` against precomputed expected values (a reference error fails the check).
CheckResult compare_output(const ExpectedOutput& expected, const Tensor& actual, const CheckOptions& options = {});

/// Checks `actual` against the reference's values of output `name`.
CheckResult check_output(ReferenceInterpreter& reference, const std::string& name, const Tensor& actual,
                         const CheckOptions& options = {});

}  // namespace texc
