// Reads the text form written by ir/IRPrinter.h back into IR, so that pass tests can be written as
// text (before -> pass -> expected). print(parse(text)) == text for printed text, and
// parse(print(x)) is structurally equal to x (ir/StructuralEqual.h).
//
// Scoping: buffers are declared in the func header and by `allocate`; variables are bound by loops,
// lets, block iter vars and reduction axes. Identifiers in the func header's shapes that are not
// declared become func-level size variables (i64). Every other undeclared name is an error
// (UnknownName), except in parse_expr/parse_stmt with ParseEnv::declare_unknown_vars, where it
// becomes a fresh i64 variable recorded in the env. Malformed text and ill-typed IR (operands of
// different types, a Store of the wrong element type, ...) throw UserError(SyntaxError) located
// in the text; the parser never hits an internal check.
//
// An unsuffixed integer literal is i64 and an unsuffixed float literal is f64, except that such a
// literal written next to an operand of another type takes that type (`x + 1` with x: i32), which
// is convenient in hand-written tests; printed text always carries explicit suffixes.
#pragma once
#include <map>
#include <string>

#include "ir/Function.h"
#include "ir/IR.h"

namespace texc {

/// Names visible to parse_expr/parse_stmt, and the variables they declared.
struct ParseEnv {
  std::map<std::string, Buffer> buffers;
  std::map<std::string, Var> vars;
  /// Unknown variable names become fresh i64 variables, added to `vars`.
  bool declare_unknown_vars = true;
};

LoweredFunc parse_func(const std::string& text, const std::string& source_name = "<ir>");
Stmt parse_stmt(const std::string& text, ParseEnv& env, const std::string& source_name = "<ir>");
Expr parse_expr(const std::string& text, ParseEnv& env, const std::string& source_name = "<ir>");
/// With an empty environment (unknown names become variables; no buffers outside allocate).
Stmt parse_stmt(const std::string& text);
Expr parse_expr(const std::string& text);

}  // namespace texc
