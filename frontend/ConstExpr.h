// Compile-time integer expressions of the source: param values, dimensions, extents, reduction
// ranges, attribute values. They are evaluated right away on the AST, with checked arithmetic
// (overflow and division by zero are located errors, never undefined behaviour).
#pragma once
#include <cstdint>
#include <string>

#include "frontend/Ast.h"
#include "frontend/Scope.h"

namespace texc {

/// Evaluates literals, sizes visible in `scope`, unary -, + - * / % << >> (floor division and
/// modulo) and min/max(a, b). Anything else is a located error.
int64_t eval_const_int(const ast::Expr& e, const Scope& scope);

/// a op b for op in + - * / % << >> min max, checked; errors point at `loc` (the operator).
int64_t checked_int_op(const std::string& op, int64_t a, int64_t b, SourceLoc loc);

}  // namespace texc
