#include "frontend/Parser.h"

#include <TexLexer.h>
#include <TexParser.h>

#include "frontend/AstBuilder.h"
#include "frontend/SyntaxErrorListener.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

/// Deeper nesting of brackets or chains of prefix operators is rejected before parsing, so that
/// no input can exhaust the stack of the (recursive) parser.
constexpr int kMaxNesting = 200;

void check_nesting(antlr4::CommonTokenStream& tokens, uint32_t file_id) {
  using P = texc_grammar::TexParser;
  int depth = 0;
  int prefix_run = 0;
  for (antlr4::Token* t : tokens.getTokens()) {
    std::string text = t->getText();
    if (text == "(" || text == "[" || text == "{") ++depth;
    if (text == ")" || text == "]" || text == "}") --depth;
    bool is_prefix = t->getType() != P::STRING && (text == "-" || text == "!");
    prefix_run = is_prefix ? prefix_run + 1 : 0;
    if (depth > kMaxNesting || prefix_run > kMaxNesting) {
      SourceLoc loc{file_id, uint32_t(t->getLine()), uint32_t(t->getCharPositionInLine() + 1)};
      throw_error(DiagId::NestingTooDeep, loc, kMaxNesting);
    }
  }
}

/// ANTLR's input stream needs valid UTF-8; anything else is reported at the first bad byte.
void check_utf8(const std::string& text, uint32_t file_id) {
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < text.size();) {
    auto byte = uint8_t(text[i]);
    size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) valid = (uint8_t(text[i + k]) >> 6) == 0x2;
    if (valid && length == 2) valid = byte >= 0xC2;  // no overlong forms
    if (valid && length == 3) {
      uint32_t cp = ((byte & 0xFu) << 12) | ((uint8_t(text[i + 1]) & 0x3Fu) << 6) | (uint8_t(text[i + 2]) & 0x3Fu);
      valid = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (valid && length == 4) {
      uint32_t cp = ((byte & 0x7u) << 18) | ((uint8_t(text[i + 1]) & 0x3Fu) << 12) |
                    ((uint8_t(text[i + 2]) & 0x3Fu) << 6) | (uint8_t(text[i + 3]) & 0x3Fu);
      valid = cp >= 0x10000 && cp <= 0x10FFFF;
    }
    if (!valid) throw_error(DiagId::InvalidUtf8, SourceLoc{file_id, line, col});
    if (byte == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += length;
  }
}

}  // namespace

ast::File parse_tex(uint32_t file_id, const std::string& path, const std::string& text) {
  check_utf8(text, file_id);
  antlr4::ANTLRInputStream input(text);
  texc_grammar::TexLexer lexer(&input);
  SyntaxErrorListener listener(file_id);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&listener);
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  check_nesting(tokens, file_id);

  texc_grammar::TexParser parser(&tokens);
  parser.removeErrorListeners();
  parser.addErrorListener(&listener);
  texc_grammar::TexParser::ProgramContext* program = parser.program();
  return build_ast(program, file_id, path);
}

}  // namespace texc
