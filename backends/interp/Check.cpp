#include "backends/interp/Check.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <unordered_set>

#include "backends/interp/InterpError.h"
#include "ir/IRVisitor.h"

namespace texc {

namespace {

int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

}  // namespace

double tolerance_for(Type t, int64_t accumulation_length) {
  if (!t.is_float()) return 0;
  if (t.is_bfloat()) return std::max(8e-2, double(accumulation_length) * std::ldexp(1.0, -8));
  double base = t.bits == 16 ? 1e-2 : t.bits == 32 ? 1e-4 : 1e-9;
  double unit_roundoff = std::ldexp(1.0, t.bits == 16 ? -11 : t.bits == 32 ? -24 : -53);
  return std::max(base, double(accumulation_length) * unit_roundoff);
}

double absolute_floor_for(Type t, int64_t accumulation_length) {
  if (!t.is_float()) return 0;
  double smallest_normal = std::ldexp(1.0, t.is_half() ? -14 : t.bits <= 32 ? -126 : -1022);  // bf16: f32's exponent
  return double(std::max<int64_t>(1, accumulation_length)) * smallest_normal;
}

int64_t accumulation_length(const OpDef& op, const std::string& name) {
  std::map<std::string, int64_t> known;  // stage name -> its length, as computed
  std::function<int64_t(const Stage&)> length_of = [&](const Stage& stage) -> int64_t {
    if (auto it = known.find(stage.name); it != known.end()) return it->second;
    known[stage.name] = 0;  // stages are acyclic; this only guards against a malformed op
    int64_t own = 0, inherited = 0;
    for_each_expr(stage.body, [&](const Expr& e) {
      if (const Reduce* r = e->as<Reduce>()) {
        if (r->reduce_kind != ReduceKind::Sum && r->reduce_kind != ReduceKind::Prod) return;
        int64_t terms = 1;
        for (const IterVar& axis : r->axes) {
          int64_t extent = 1;
          if (is_const_int(axis.extent, &extent) && extent > 0) terms = saturating_mul(terms, extent);
        }
        own = saturating_add(own, terms);
      } else if (const Load* load = e->as<Load>()) {
        if (const Stage* read = op.find_stage(load->buffer->name); read && read != &stage)
          inherited = std::max(inherited, length_of(*read));
      }
    });
    return known[stage.name] = saturating_add(own, inherited);
  };
  const Stage* stage = op.find_stage(name);
  return stage ? length_of(*stage) : 0;
}

namespace {

std::string format_value(Type t, Value v) {
  if (!t.is_float()) return std::to_string(v.i);
  std::ostringstream os;
  os.precision(9);
  os << v.f;
  return os.str();
}

std::vector<int64_t> unflatten(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return index;
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

ExpectedOutput expected_output(ReferenceInterpreter& reference, const std::string& name,
                               const CheckOptions& options) {
  ExpectedOutput e;
  e.name = name;
  e.dtype = reference.stage_dtype(name);
  e.shape = reference.stage_shape(name);
  int64_t n = 1;
  for (int64_t extent : e.shape) n *= extent;
  e.points = points_to_check(n, options, &e.sampled);
  e.values.reserve(e.points.size());
  e.magnitudes.reserve(e.points.size());
  try {
    for (int64_t p : e.points) {
      double magnitude = 0;
      e.values.push_back(reference.evaluate_point(name, unflatten(e.shape, p), &magnitude));
      e.magnitudes.push_back(magnitude);
    }
  } catch (const InterpError& error) {
    e.error = "reference: " + std::string(error.what());
  }
  return e;
}

ExpectedOutput expected_output(const Tensor& values, const std::string& name) {
  ExpectedOutput e;
  e.name = name;
  e.dtype = values.dtype();
  e.shape = values.shape();
  int64_t n = values.num_elements();
  e.points.resize(n);
  e.values.reserve(n);
  for (int64_t p = 0; p < n; ++p) {
    e.points[p] = p;
    e.values.push_back(e.dtype.is_float() ? float_value(values.get_double(p)) : int_value(values.get_int(p)));
  }
  return e;
}

CheckResult compare_output(const ExpectedOutput& expected_output, const Tensor& actual, const CheckOptions& options) {
  CheckResult r;
  const std::string& name = expected_output.name;
  Type t = expected_output.dtype;
  if (actual.dtype() != t || actual.shape() != expected_output.shape) {
    r.passed = false;
    r.message = "output '" + name + "' is " + actual.describe() + ", expected " + t.str() +
                shape_string(expected_output.shape);
    return r;
  }
  if (!expected_output.error.empty()) {
    r.passed = false;
    r.message = expected_output.error;
    return r;
  }
  const std::vector<int64_t>& points = expected_output.points;
  const std::vector<Value>& expected = expected_output.values;
  r.sampled = expected_output.sampled;
  r.points_checked = int64_t(points.size());

  double tol = tolerance_for(t, options.accumulation_length) + (t.is_float() ? 2 * options.input_unit_roundoff : 0);
  double floor = absolute_floor_for(t, options.accumulation_length);
  const std::vector<double>& magnitudes = expected_output.magnitudes;
  for (size_t k = 0; k < points.size(); ++k) {
    int64_t p = points[k];
    Value want = expected[k], got;
    double err = 0;
    bool ok;
    if (t.is_float()) {
      got = float_value(actual.get_double(p));
      if (!std::isfinite(want.f)) ++r.nonfinite_expected;
      if (std::isnan(want.f) || std::isnan(got.f)) {
        ok = std::isnan(want.f) && std::isnan(got.f);
        err = ok ? 0 : INFINITY;
      } else if (std::isinf(want.f) || std::isinf(got.f)) {
        ok = want.f == got.f;
        err = ok ? 0 : INFINITY;
      } else {
        double magnitude = k < magnitudes.size() ? magnitudes[k] : std::fabs(want.f);
        double diff = std::fabs(got.f - want.f);
        ok = diff <= tol * magnitude + floor;
        err = diff / (magnitude + floor / tol);
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
  } else if (t.is_float() && r.points_checked > 0 && r.nonfinite_expected == r.points_checked) {
    r.passed = false;
    r.message = "every one of the " + std::to_string(r.points_checked) + " checked points of output '" + name +
                "' is NaN or infinite in the reference, so no number was compared: the inputs are outside the "
                "op's domain (a sqrt or log of a negative, a division by zero); declare the inputs' domain in the "
                "op (`var: f32[C] in 0.0..4.0`), or give them a range with --input-range [NAME=]LO,HI or files "
                "with --inputs DIR";
  }
  return r;
}

CheckResult check_output(ReferenceInterpreter& reference, const std::string& name, const Tensor& actual,
                         const CheckOptions& options) {
  return compare_output(expected_output(reference, name, options), actual, options);
}

}  // namespace texc
