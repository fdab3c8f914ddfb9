// Parsing one .tex source text into texc's AST (lexing, parsing, parse tree -> AST).
#pragma once
#include <cstdint>
#include <string>

#include "frontend/Ast.h"

namespace texc {

/// The nesting limit of the language (docs/language.md, "Limits"): one level for each open `(`
/// or `[` (parentheses, call arguments, select, subscripts), each prefix `-` or `!`, each schedule
/// `if` block and each `else if` of a chain. An operator chain `a + b * c - d` adds no level, but
/// one chain has at most kMaxOperatorChain operators. Counted by the AST builder; the parser's
/// pre-scan checks a lower bound of the same count so that the (recursive) parser never sees more.
inline constexpr int kMaxNesting = 256;
inline constexpr int kMaxOperatorChain = 4096;

/// Parses `text`, registered as file `file_id` in the SourceManager. Throws UserError at the first
/// syntax error (file:line:col of the offending token).
ast::File parse_tex(uint32_t file_id, const std::string& path, const std::string& text);

}  // namespace texc
