// Parsing one .tex source text into texc's AST (lexing, parsing, parse tree -> AST).
#pragma once
#include <cstdint>
#include <string>

#include "frontend/Ast.h"

namespace texc {

/// Parses `text`, registered as file `file_id` in the SourceManager. Throws UserError at the first
/// syntax error (file:line:col of the offending token).
ast::File parse_tex(uint32_t file_id, const std::string& path, const std::string& text);

}  // namespace texc
