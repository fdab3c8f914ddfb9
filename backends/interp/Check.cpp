#include "backends/interp/Check.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_set>

#include "backends/interp/InterpError.h"

namespace texc {

double tolerance_for(Type t) {
  if (!t.is_float()) return 0;
  if (t.bits == 16) return 1e-2;
  if (t.bits == 32) return 1e-4;
  return 1e-9;
}

namespace {

std::string format_value(Type t, Value v) {
  if (!t.is_float()) return std::to_string(v.i);
  std::ostringstream os;
  os.precision(9);
  os << v.f;
  return os.str();
}

std::vector<int64_t> points_to_check(int64_t n, const CheckOptions& options, bool* sampled) {
  std::vector<int64_t> points;
  *sampled = n > options.full_check_limit;
  if (!*sampled) {
    for (int64_t i = 0; i < n; ++i) points.push_back(i);
    return points;
  }
  // Distinct random points until there are sample_points of them, plus the first and the last.
  uint64_t state = options.seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  std::unordered_set<int64_t> chosen = {0, n - 1};
  int64_t wanted = std::min<int64_t>(n, options.sample_points + 2);
  while (int64_t(chosen.size()) < wanted) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;  // xorshift64
    chosen.insert(int64_t(state % uint64_t(n)));
  }
  points.assign(chosen.begin(), chosen.end());
  std::sort(points.begin(), points.end());
  return points;
}

}  // namespace

CheckResult check_output(ReferenceInterpreter& reference, const std::string& name, const Tensor& actual,
                         const CheckOptions& options) {
  CheckResult r;
  Type t = reference.stage_dtype(name);
  std::vector<int64_t> shape = reference.stage_shape(name);
  if (actual.dtype() != t || actual.shape() != shape) {
    r.passed = false;
    r.message = "output '" + name + "' is " + actual.describe() + ", expected " + t.str() + shape_string(shape);
    return r;
  }
  std::vector<int64_t> points = points_to_check(actual.num_elements(), options, &r.sampled);
  std::vector<Value> expected;
  expected.reserve(points.size());
  try {
    for (int64_t p : points) expected.push_back(reference.evaluate_point(name, actual.unflatten(p)));
  } catch (const InterpError& e) {
    r.passed = false;
    r.message = "reference: " + std::string(e.what());
    return r;
  }
  r.points_checked = int64_t(points.size());

  double tol = tolerance_for(t);
  double scale = 1e-12;
  if (t.is_float()) {
    double sum = 0;
    int64_t finite = 0;
    for (Value v : expected)
      if (std::isfinite(v.f)) sum += std::fabs(v.f), ++finite;
    if (finite) scale = std::max(scale, sum / double(finite));
  }
  for (size_t k = 0; k < points.size(); ++k) {
    int64_t p = points[k];
    Value want = expected[k], got;
    double err = 0;
    bool ok;
    if (t.is_float()) {
      got = float_value(actual.get_double(p));
      if (std::isnan(want.f) || std::isnan(got.f)) {
        ok = std::isnan(want.f) && std::isnan(got.f);
        err = ok ? 0 : INFINITY;
      } else if (std::isinf(want.f) || std::isinf(got.f)) {
        ok = want.f == got.f;
        err = ok ? 0 : INFINITY;
      } else {
        err = std::fabs(got.f - want.f) / std::max(std::fabs(want.f), scale);
        ok = err <= tol;
      }
    } else {
      got = int_value(actual.get_int(p));
      ok = got.i == want.i;
      err = ok ? 0 : std::fabs(double(got.i) - double(want.i)) / std::max(std::fabs(double(want.i)), 1.0);
    }
    r.max_rel_err = std::max(r.max_rel_err, err);
    if (!ok) {
      if (r.mismatches == 0)
        r.message = name + shape_string(actual.unflatten(p)) + " = " + format_value(t, got) + ", expected " +
                    format_value(t, want);
      ++r.mismatches;
    }
  }
  if (r.mismatches) {
    r.passed = false;
    r.message += " (" + std::to_string(r.mismatches) + " of " + std::to_string(r.points_checked) +
                 " checked elements differ)";
  }
  return r;
}

}  // namespace texc
