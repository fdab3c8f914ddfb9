// The scalar semantics of IR operations on the host, shared by both interpreters so they agree
// with each other and with ir/ConstEval:
// - integers (and bool) are carried in int64: signed types sign-extended, unsigned types
//   zero-extended (u64 as its bit pattern), bool as 0/1; every result is wrapped to the width of
//   its type (wrap_int);
// - integer / and % are floor division and floor modulo (unsigned: plain), >> is arithmetic on
//   signed types, shifts by >= 64 or < 0 give 0 (or -1 for >> of a negative signed value);
// - floats are carried in double; round_float rounds to f32 or f16 (f64 unchanged);
// - float -> integer casts truncate toward zero (NaN gives 0, out-of-range saturates to int64
//   before wrapping).
// Integer division by zero throws InterpError.
#pragma once
#include <cstdint>
#include <string>

#include "ir/IR.h"

namespace texc {

/// A scalar on the host: `i` for integer and bool types, `f` for floating-point types (the type is
/// known from the IR node that produced it).
union Value {
  int64_t i;
  double f;
};
inline Value int_value(int64_t i) {
  Value v;
  v.i = i;
  return v;
}
inline Value float_value(double f) {
  Value v;
  v.f = f;
  return v;
}

/// v wrapped to the width and signedness of t (t integer or bool).
int64_t wrap_int(Type t, int64_t v);
/// x rounded to the precision of float type t.
double round_float(Type t, double x);
/// x rounded to TF32 (f32's range, 10 mantissa bits), to nearest with ties away from zero, as
/// PTX's cvt.rna.tf32.f32 (the operands of a TF32 mma: lower/gpu/MmaIntrinsics.h).
double round_tf32(double x);

/// a op b for integer/bool operands of type `operand_type`. Comparisons return 0/1. The result is
/// wrapped to the result type (operand_type, or bool for comparisons and && ||).
int64_t int_binary(BinaryOp op, Type operand_type, int64_t a, int64_t b);
/// a op b on doubles, unrounded; comparisons return 0.0/1.0. Float % is floor modulo.
double float_binary(BinaryOp op, double a, double b);

/// A math function (exp log sqrt tanh sigmoid abs pow floor ceil) on doubles, unrounded:
/// args[0] (and args[1] for pow).
using MathFunction = double (*)(const double* args);
/// The math function `name` taking `num_args` arguments, or nullptr if texc has none.
MathFunction find_math_function(const std::string& name, size_t num_args);

/// Casts between the host representations (see above). `from` and `to` are scalar types.
int64_t cast_to_int(Type to, Type from, int64_t int_value, double float_value);
double cast_to_float(Type to, Type from, int64_t int_value, double float_value);

}  // namespace texc
