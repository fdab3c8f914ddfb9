// Compile-time integer expressions of the source: param values, dimensions, extents, reduction
// ranges, attribute values; and compile-time numbers (float attributes, input domains). They are
// evaluated right away on the AST, with checked arithmetic (overflow and division by zero are
// located errors, never undefined behaviour).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/Ast.h"
#include "frontend/DefineValue.h"
#include "frontend/Scope.h"
#include "ir/Type.h"

namespace texc {

/// Evaluates literals, sizes visible in `scope`, unary -, + - * / % << >> (floor division and
/// modulo) and min/max(a, b). Anything else is a located error.
int64_t eval_const_int(const ast::Expr& e, const Scope& scope);

/// A compile-time number (input domains, float attribute values): without a float literal or float
/// attribute in it, the integer expression's value (eval_const_int); with one, + - * / and unary -
/// over float literals, float attributes and integer expressions, evaluated in double. Anything
/// else is a located error.
double eval_const_number(const ast::Expr& e, const Scope& scope);

/// The value of `-D name=...` where an integer is needed (a param, an int attribute, a dimension);
/// DefineNotInteger for a number with a fraction or an exponent.
int64_t define_as_int(const std::string& name, const DefineValue& value);

/// A compile-time condition: true, false, comparisons (== != < <= > >=) of compile-time integers
/// (eval_const_int), joined by && || and negated by !. Anything else is a located error.
bool eval_const_bool(const ast::Expr& e, const Scope& scope);

/// Throws TooManyDimensions past 64 dimensions, and TensorTooLarge at `loc` (the tensor's declaration) unless a tensor of `dtype` with `shape`
/// (positive extents) has a size in bytes that fits in int64: past that, element and byte counts
/// computed anywhere later would wrap around.
void check_tensor_size(const std::string& name, Type dtype, const std::vector<int64_t>& shape, SourceLoc loc);

/// a op b for op in + - * / % << >> min max, checked; errors point at `loc` (the operator).
int64_t checked_int_op(const std::string& op, int64_t a, int64_t b, SourceLoc loc);

}  // namespace texc
