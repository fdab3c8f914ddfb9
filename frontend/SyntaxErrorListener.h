// Turns ANTLR's syntax errors into texc diagnostics.
//
// Installed on the lexer and the parser in place of ANTLR's console listener: the first error
// throws UserError(DiagId::SyntaxError) located at the offending token, with a message written for
// people ("expected ']' but found '='", "unexpected character '@'") instead of ANTLR's own.
// Nothing is ever printed by ANTLR.
#pragma once
#include <antlr4-runtime.h>

#include <cstdint>

namespace texc {

class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  explicit SyntaxErrorListener(uint32_t file_id) : file_id_(file_id) {}
  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending_symbol, size_t line,
                   size_t char_position_in_line, const std::string& msg, std::exception_ptr e) override;

 private:
  uint32_t file_id_;
};

}  // namespace texc
