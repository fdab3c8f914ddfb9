#include "backends/interp/ScalarOps.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/interp/Half.h"
#include "backends/interp/InterpError.h"
#include "ir/ConstEval.h"

namespace texc {

int64_t wrap_int(Type t, int64_t v) {
  if (t.is_bool()) return v != 0;
  switch (t.bits) {
    case 8: return t.is_int() ? int64_t(int8_t(v)) : int64_t(uint8_t(v));
    case 16: return t.is_int() ? int64_t(int16_t(v)) : int64_t(uint16_t(v));
    case 32: return t.is_int() ? int64_t(int32_t(v)) : int64_t(uint32_t(v));
    default: return v;
  }
}

double round_float(Type t, double x) {
  if (t.bits == 32) return double(float(x));
  if (t.is_bfloat()) return round_to_bfloat(x);
  if (t.bits == 16) return round_to_half(x);
  return x;
}

int64_t int_binary(BinaryOp op, Type t, int64_t a, int64_t b) {
  bool is_unsigned = t.is_uint() || t.is_bool();
  int64_t r = 0;
  switch (op) {
    case BinaryOp::Add: r = int64_t(uint64_t(a) + uint64_t(b)); break;
    case BinaryOp::Sub: r = int64_t(uint64_t(a) - uint64_t(b)); break;
    case BinaryOp::Mul: r = int64_t(uint64_t(a) * uint64_t(b)); break;
    case BinaryOp::Div:
    case BinaryOp::Mod:
      if (b == 0) throw InterpError(std::string("integer ") + (op == BinaryOp::Div ? "division" : "modulo") +
                                    " by zero (" + t.str() + ")");
      if (is_unsigned) {
        r = op == BinaryOp::Div ? int64_t(uint64_t(a) / uint64_t(b)) : int64_t(uint64_t(a) % uint64_t(b));
      } else if (a == std::numeric_limits<int64_t>::min() && b == -1) {
        r = op == BinaryOp::Div ? a : 0;  // wraps, as two's complement arithmetic would
      } else {
        r = op == BinaryOp::Div ? floor_div(a, b) : floor_mod(a, b);
      }
      break;
    case BinaryOp::Min: r = is_unsigned ? int64_t(std::min(uint64_t(a), uint64_t(b))) : std::min(a, b); break;
    case BinaryOp::Max: r = is_unsigned ? int64_t(std::max(uint64_t(a), uint64_t(b))) : std::max(a, b); break;
    case BinaryOp::Shl: r = (b < 0 || b >= 64) ? 0 : int64_t(uint64_t(a) << b); break;
    case BinaryOp::Shr:
      if (b < 0 || b >= 64) r = (a < 0 && !is_unsigned) ? -1 : 0;
      else r = is_unsigned ? int64_t(uint64_t(a) >> b) : (a >> b);
      break;
    case BinaryOp::EQ: return a == b;
    case BinaryOp::NE: return a != b;
    case BinaryOp::LT: return is_unsigned ? uint64_t(a) < uint64_t(b) : a < b;
    case BinaryOp::LE: return is_unsigned ? uint64_t(a) <= uint64_t(b) : a <= b;
    case BinaryOp::GT: return is_unsigned ? uint64_t(a) > uint64_t(b) : a > b;
    case BinaryOp::GE: return is_unsigned ? uint64_t(a) >= uint64_t(b) : a >= b;
    case BinaryOp::And: return (a != 0) && (b != 0);
    case BinaryOp::Or: return (a != 0) || (b != 0);
  }
  return wrap_int(t, r);
}

double float_binary(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    case BinaryOp::Mod: return a - std::floor(a / b) * b;
    case BinaryOp::Min: return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b);
    case BinaryOp::Max: return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b);
    case BinaryOp::EQ: return a == b;
    case BinaryOp::NE: return a != b;
    case BinaryOp::LT: return a < b;
    case BinaryOp::LE: return a <= b;
    case BinaryOp::GT: return a > b;
    case BinaryOp::GE: return a >= b;
    case BinaryOp::And: return (a != 0) && (b != 0);
    case BinaryOp::Or: return (a != 0) || (b != 0);
    case BinaryOp::Shl:
    case BinaryOp::Shr: break;
  }
  throw InterpError(std::string("operator '") + binary_op_symbol(op) + "' applied to floating-point values");
}

MathFunction find_math_function(const std::string& name, size_t num_args) {
  static const struct {
    const char* name;
    size_t num_args;
    MathFunction function;
  } table[] = {
      {"exp", 1, [](const double* x) { return std::exp(x[0]); }},
      {"log", 1, [](const double* x) { return std::log(x[0]); }},
      {"sqrt", 1, [](const double* x) { return std::sqrt(x[0]); }},
      {"tanh", 1, [](const double* x) { return std::tanh(x[0]); }},
      {"sigmoid", 1, [](const double* x) { return 1.0 / (1.0 + std::exp(-x[0])); }},
      {"abs", 1, [](const double* x) { return std::fabs(x[0]); }},
      {"floor", 1, [](const double* x) { return std::floor(x[0]); }},
      {"ceil", 1, [](const double* x) { return std::ceil(x[0]); }},
      {"pow", 2, [](const double* x) { return std::pow(x[0], x[1]); }},
      {"exp2", 1, [](const double* x) { return std::exp2(x[0]); }},
      {"expm1", 1, [](const double* x) { return std::expm1(x[0]); }},
      {"log2", 1, [](const double* x) { return std::log2(x[0]); }},
      {"log1p", 1, [](const double* x) { return std::log1p(x[0]); }},
      {"rsqrt", 1, [](const double* x) { return 1.0 / std::sqrt(x[0]); }},
      {"erf", 1, [](const double* x) { return std::erf(x[0]); }},
      {"erfc", 1, [](const double* x) { return std::erfc(x[0]); }},
      {"sin", 1, [](const double* x) { return std::sin(x[0]); }},
      {"cos", 1, [](const double* x) { return std::cos(x[0]); }},
      {"atan2", 2, [](const double* x) { return std::atan2(x[0], x[1]); }},
      {"round", 1, [](const double* x) { return std::round(x[0]); }},  // halves away from zero
      {"trunc", 1, [](const double* x) { return std::trunc(x[0]); }},
      {"fmod", 2, [](const double* x) { return std::fmod(x[0], x[1]); }},  // the sign of x[0]
      {"isnan", 1, [](const double* x) { return std::isnan(x[0]) ? 1.0 : 0.0; }},
      {"isinf", 1, [](const double* x) { return std::isinf(x[0]) ? 1.0 : 0.0; }},
  };
  for (const auto& e : table)
    if (name == e.name && num_args == e.num_args) return e.function;
  return nullptr;
}

int64_t cast_to_int(Type to, Type from, int64_t int_value, double float_value) {
  if (!from.is_float()) return wrap_int(to, int_value);
  if (to.is_bool()) return float_value != 0.0;
  if (std::isnan(float_value)) return 0;
  double t = std::trunc(float_value);
  if (to.is_uint() && to.bits == 64) {
    if (t <= 0) return 0;
    if (t >= 18446744073709551616.0) return -1;
    return int64_t(uint64_t(t));
  }
  if (t >= 9223372036854775807.0) return wrap_int(to, std::numeric_limits<int64_t>::max());
  if (t <= -9223372036854775808.0) return wrap_int(to, std::numeric_limits<int64_t>::min());
  return wrap_int(to, int64_t(t));
}

double cast_to_float(Type to, Type from, int64_t int_value, double float_value) {
  double x;
  if (from.is_float()) x = float_value;
  else if (from.is_uint() && from.bits == 64) x = double(uint64_t(int_value));
  else x = double(int_value);
  return round_float(to, x);
}

double round_tf32(double x) {
  float f = float(x);
  if (!std::isfinite(f)) return f;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = (bits + 0x1000u) & 0xffffe000u;  // half of the last kept bit added to the magnitude, the rest cut
  std::memcpy(&f, &bits, sizeof bits);
  return f;
}

}  // namespace texc
