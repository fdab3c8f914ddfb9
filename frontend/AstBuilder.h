// Parse tree -> texc AST: copies what was written, with the location of every name and operator.
//
// The only code that walks ANTLR's parse tree. It rejects what the grammar accepts but no AST can
// hold (integer literals beyond int64, expressions nested too deeply to process safely) with
// located diagnostics; everything else is left to semantic analysis.
#pragma once
#include <cstdint>
#include <string>

#include "frontend/Ast.h"

namespace texc_grammar {
class TexParser;
}
namespace antlr4 {
class ParserRuleContext;
}

namespace texc {

/// Builds the AST of a whole file from its `program` parse tree.
ast::File build_ast(antlr4::ParserRuleContext* program, uint32_t file_id, const std::string& path);

}  // namespace texc
