#include "frontend/SyntaxErrorListener.h"

#include <TexParser.h>

#include <set>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"

namespace texc {

namespace {

/// How a token is spelled in a message: 'x' for a concrete token, words for classes of tokens.
std::string describe_token_type(const antlr4::dfa::Vocabulary& vocabulary, size_t type) {
  using P = texc_grammar::TexParser;
  switch (type) {
    case antlr4::Token::EOF: return "end of file";
    case P::ID: return "a name";
    case P::INT: return "an integer";
    case P::FLOAT: return "a number";
    case P::STRING: return "a string";
    default: return vocabulary.getDisplayName(type);  // the literal, quoted: ']'
  }
}

std::string describe_found(antlr4::Token* token) {
  if (!token || token->getType() == antlr4::Token::EOF) return "end of file";
  std::string text = token->getText();
  if (text.size() > 20) text = text.substr(0, 20) + "...";
  return "'" + text + "'";
}

/// "']'", "',' or ']'", "an expression or ')'"; "" if the set is too large to be helpful.
std::string describe_expected(antlr4::Parser* parser) {
  using P = texc_grammar::TexParser;
  std::set<size_t> remaining;
  for (ssize_t t : parser->getExpectedTokens().toList()) remaining.insert(size_t(t));
  std::vector<std::string> items;
  // The tokens that can start an expression are said as one thing.
  const std::set<size_t> expression_starts = {P::ID, P::INT, P::FLOAT, P::TRUE, P::FALSE};
  bool is_expression = remaining.count(P::ID) && remaining.count(P::INT) && remaining.count(P::FLOAT);
  if (is_expression) {
    items.push_back("an expression");
    for (size_t t : expression_starts) remaining.erase(t);
    const auto& vocabulary = parser->getVocabulary();
    for (auto it = remaining.begin(); it != remaining.end();) {
      std::string lit = vocabulary.getLiteralName(*it);
      if (lit == "'('" || lit == "'-'" || lit == "'!'")
        it = remaining.erase(it);
      else
        ++it;
    }
  }
  // ';' may end any statement; suggesting it never helps.
  for (size_t t : remaining) {
    if (parser->getVocabulary().getLiteralName(t) == "';'") continue;
    items.push_back(describe_token_type(parser->getVocabulary(), t));
  }
  if (items.empty() || items.size() > 5) return "";
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += (i + 1 == items.size()) ? " or " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

void SyntaxErrorListener::syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending_symbol, size_t line,
                                      size_t char_position_in_line, const std::string& msg, std::exception_ptr e) {
  SourceLoc loc{file_id_, uint32_t(line), uint32_t(char_position_in_line + 1)};
  auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
  if (!parser) {
    // The lexer: no token starts with the character at the start of the failed token.
    auto* lexer = dynamic_cast<antlr4::Lexer*>(recognizer);
    std::string first;
    if (lexer) {
      antlr4::CharStream* input = lexer->getInputStream();
      size_t start = lexer->tokenStartCharIndex;
      if (start < input->size()) first = input->getText(antlr4::misc::Interval(start, start));
    }
    if (first == "\"") throw_error(DiagId::SyntaxError, loc, "unterminated string");
    if (first.size() != 1 || first[0] < 32 || first[0] == 127) {
      throw_error(DiagId::SyntaxError, loc, "unexpected non-printable or non-ASCII character");
    }
    throw_error(DiagId::SyntaxError, loc, fmt::format("unexpected character '{}'", first));
  }
  // `knob T in range(1, 8)` or `knob T in 1..8`: say how knob values are written.
  if (antlr4::TokenStream* tokens = parser->getTokenStream(); tokens && offending_symbol) {
    size_t i = offending_symbol->getTokenIndex();
    if (i >= 3 && i < tokens->size() && tokens->get(i - 1)->getText() == "in" &&
        tokens->get(i - 3)->getText() == "knob") {
      throw_error(DiagId::KnobValuesSyntax, loc, tokens->get(i - 2)->getText(), tokens->get(i - 2)->getText(),
                  tokens->get(i - 2)->getText());
    }
  }
  // `op f(const W: f32[...])`, C's order: say where const goes.
  if (antlr4::TokenStream* tokens = parser->getTokenStream(); tokens && offending_symbol) {
    size_t i = offending_symbol->getTokenIndex();
    if (offending_symbol->getText() == "const" && i + 2 < tokens->size() && tokens->get(i + 2)->getText() == ":") {
      std::string name = tokens->get(i + 1)->getText();
      throw_error(DiagId::SyntaxError, loc,
                  fmt::format("'const' goes after the colon, before the type: '{}: const <type>[...]'", name));
    }
  }
  std::string found = describe_found(offending_symbol);
  std::string expected = describe_expected(parser);
  if (expected.empty()) throw_error(DiagId::SyntaxError, loc, fmt::format("unexpected {}", found));
  throw_error(DiagId::SyntaxError, loc, fmt::format("expected {} but found {}", expected, found));
}

}  // namespace texc
