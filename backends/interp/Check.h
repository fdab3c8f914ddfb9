// Check: compares one output tensor of an op with the reference interpreter.
//
// Every element is judged on its own. Integers and bool must match exactly; a float element a
// with reference b passes when
//     |a - b| <= tol * M + floor
// where M is b's condition magnitude, computed by the reference alongside b
// (ReferenceInterpreter.h): |b| for an element-wise result, the sum of its terms' magnitudes for a
// sum — the classical bound of a sum's rounding error is proportional to the sum of |terms|, not to
// |result|, so a result that cancels to near zero is judged by its terms, and one huge element
// widens no other element's bound. tol = max(base, n * u): base is 1e-4 for f32, 1e-2 for f16,
// 8e-2 for bf16 (like f16's, about 20 of its units of roundoff), 1e-9 for f64; u is the element
// type's unit roundoff (2^-24, 2^-11, 2^-8, 2^-53) and n the accumulation
// length of the output (accumulation_length), so n * u is the classical worst-case bound of a
// recursive sum of n terms computed in the element type, whatever the order. A sum of 10^6 f32
// terms may be 6% of its terms' magnitude off; a sum of 1000 f32 terms is held to 1e-4.
// floor = max(1, n) * the smallest normal number of the element type (f32 and bf16 2^-126 ~ 1.2e-38,
// f16 2^-14 ~ 6.1e-5, f64 2^-1022): compiled code may flush subnormal values to zero, each term of a
// sum losing less than that. NaN matches only NaN; an infinity only the same infinity. An output
// whose checked reference values are all NaN or infinite compares no number: the check fails, as
// it says nothing (the inputs are outside the op's domain).
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
  /// The unit roundoff of the operands the kernel multiplies with where it rounds them to a
  /// narrower format than the element type (2^-11 for a TF32 tensor-core matmul:
  /// lower/gpu/MmaIntrinsics.h input_unit_roundoff), else 0. Each product is then off by up to
  /// about twice that, so the tolerance grows by 2 * input_unit_roundoff.
  double input_unit_roundoff = 0;
};

struct CheckResult {
  bool passed = true;
  double max_rel_err = 0;     // max over checked points of |a - b| / (M + floor / tol): <= tol iff it passes
  int64_t points_checked = 0;
  int64_t mismatches = 0;
  bool sampled = false;       // false: every element was checked
  int64_t nonfinite_expected = 0;  // checked points whose reference value is NaN or infinite
  std::string message;        // why it failed: the first mismatching element, or the reference's error
};

/// The relative tolerance for element type t (0 for integers and bool) of a value that went through
/// accumulations of `accumulation_length` terms in all (see the file comment).
double tolerance_for(Type t, int64_t accumulation_length = 0);
/// The absolute floor of the tolerance for element type t (0 for integers and bool): max(1, n) times
/// the type's smallest normal number (see the file comment).
double absolute_floor_for(Type t, int64_t accumulation_length = 0);

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
  std::vector<double> magnitudes;  // its condition magnitude M (empty: |value|)
  bool sampled = false;
  std::string error;            // "reference: ..." when the reference failed (an InterpError), else ""
};
ExpectedOutput expected_output(ReferenceInterpreter& reference, const std::string& name,
                               const CheckOptions& options = {});
/// Every element of `values` as the expected values of output `name` (values computed another way
/// and checked already: the outputs of a graph's kernels run one by one, each checked against the
/// reference on its own inputs, GraphCheck.h).
ExpectedOutput expected_output(const Tensor& values, const std::string& name);
/// Checks `actual` against precomputed expected values (a reference error fails the check).
CheckResult compare_output(const ExpectedOutput& expected, const Tensor& actual, const CheckOptions& options = {});

/// Checks `actual` against the reference's values of output `name`.
CheckResult check_output(ReferenceInterpreter& reference, const std::string& name, const Tensor& actual,
                         const CheckOptions& options = {});

}  // namespace texc
