#include "frontend/Parser.h"

#include <TexLexer.h>
#include <TexParser.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <new>

#include "frontend/AstBuilder.h"
#include "frontend/SyntaxErrorListener.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

/// A lower bound of the AST builder's nesting count (kMaxNesting), from the tokens alone, so that
/// no input can exhaust the stack of the recursive parser. Counted: each open `(` or `[` (with the
/// prefix operators written right before it), each `{` beyond the op's and its block's own (schedule
/// `if` blocks), each `else if` link of a chain (until the chain ends), and a run of prefix
/// operators. The parameter list's `(` and a shape's `[` are counted here but are no expression
/// level, so the bound checked is kMaxNesting + 2: this check fires only where the AST builder's
/// count would exceed kMaxNesting too, with the same message.
void check_nesting(antlr4::CommonTokenStream& tokens, uint32_t file_id) {
  using P = texc_grammar::TexParser;
  struct Level {
    int weight;        // what the bracket adds to the depth
    int else_ifs = 0;  // `else if` links of the chain being read at this level
  };
  std::vector<Level> stack;
  int depth = 0;  // sum of weight + else_ifs over the stack
  int braces = 0;
  int prefix_run = 0;
  bool after_operand = false;
  const std::vector<antlr4::Token*>& all = tokens.getTokens();
  for (size_t n = 0; n < all.size(); ++n) {
    antlr4::Token* t = all[n];
    size_t type = t->getType();
    if (type == antlr4::Token::EOF) break;
    std::string text = t->getText();
    int current = depth + prefix_run;
    if (text == "(" || text == "[" || text == "{") {
      int weight = text == "{" ? (++braces > 2 ? 1 : 0) : 1 + prefix_run;
      stack.push_back({weight});
      depth += weight;
      current = depth;
      prefix_run = 0;
      after_operand = false;
    } else if (text == ")" || text == "]" || text == "}") {
      if (!stack.empty()) {
        depth -= stack.back().weight + stack.back().else_ifs;
        stack.pop_back();
      }
      if (text == "}") {
        --braces;
        bool chain_goes_on = n + 1 < all.size() && all[n + 1]->getType() == P::ELSE;
        if (!chain_goes_on && !stack.empty()) {
          depth -= stack.back().else_ifs;
          stack.back().else_ifs = 0;
        }
      }
      prefix_run = 0;
      after_operand = text != "}";
    } else if (type == P::IF && n > 0 && all[n - 1]->getType() == P::ELSE && !stack.empty()) {
      ++stack.back().else_ifs;
      current = ++depth;
      after_operand = false;
    } else if ((text == "-" || text == "!") && type != P::STRING && !after_operand) {
      current = depth + ++prefix_run;
    } else {
      after_operand = type == P::ID || type == P::INT || type == P::FLOAT || type == P::STRING ||
                      type == P::TRUE || type == P::FALSE;
      prefix_run = 0;
    }
    if (current > kMaxNesting + 2) {
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

static ast::File parse_tex_text(uint32_t file_id, const std::string& path, const std::string& text);

namespace {

constexpr uint64_t kParseBytesPerSourceByte = 160;  // ANTLR's UTF-32 copy, tokens, parse tree

/// Whether parsing `source_bytes` would pass the address-space limit (ulimit -v) from what the
/// process uses now: known before parsing, as running out inside ANTLR (a destructor that
/// allocates) would abort rather than throw.
bool parse_exceeds_address_space(uint64_t source_bytes) {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return false;
  uint64_t used_pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages = 0;
    if (std::fscanf(statm, "%llu", &pages) == 1) used_pages = pages;
    std::fclose(statm);
  }
  uint64_t used = used_pages * uint64_t(sysconf(_SC_PAGESIZE));
  return used + kParseBytesPerSourceByte * source_bytes > uint64_t(limit.rlim_cur);
}

}  // namespace

ast::File parse_tex(uint32_t file_id, const std::string& path, const std::string& text) {
  // The parse takes about 160 bytes of memory per byte of source (ANTLR's UTF-32 copy, tokens,
  // parse tree): where the address space is limited, running out is a user error, not an abort.
  if (parse_exceeds_address_space(text.size()))
    throw_error(DiagId::SourceTooLargeToParse, SourceLoc{file_id, 1, 1}, text.size());
  try {
    return parse_tex_text(file_id, path, text);
  } catch (const std::bad_alloc&) {
    throw_error(DiagId::SourceTooLargeToParse, SourceLoc{file_id, 1, 1}, text.size());
  }
}

static ast::File parse_tex_text(uint32_t file_id, const std::string& path, const std::string& text) {
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
