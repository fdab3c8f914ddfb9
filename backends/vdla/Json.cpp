#include "backends/vdla/Json.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "ir/Diagnostics.h"

namespace texc::vdla {

const char* JsonValue::kind_name() const {
  switch (kind) {
    case Kind::Null: return "null";
    case Kind::Bool: return "a boolean";
    case Kind::Number: return "a number";
    case Kind::String: return "a string";
    case Kind::Array: return "an array";
    case Kind::Object: return "an object";
  }
  return "?";
}

namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  Parser(const std::string& text, uint32_t file) : text_(text), file_(file) {}

  JsonValue document() {
    skip_space();
    JsonValue v = value(0);
    skip_space();
    if (pos_ < text_.size()) fail("unexpected " + describe_here() + " after the JSON value");
    return v;
  }

 private:
  const std::string& text_;
  uint32_t file_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;

  SourceLoc here() const { return SourceLoc{file_, line_, col_}; }
  [[noreturn]] void fail(const std::string& why) { throw_error(DiagId::JsonSyntax, here(), why); }

  std::string describe_here() const {
    if (pos_ >= text_.size()) return "end of file";
    char c = text_[pos_];
    if (c == '\n') return "end of line";
    if (static_cast<unsigned char>(c) < 0x20) return "a control character";
    return std::string("'") + c + "'";
  }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      advance();
  }

  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  void expect(char c, const char* what) {
    if (!at(c)) fail(std::string("expected ") + what + ", found " + describe_here());
    advance();
  }

  JsonValue value(int depth) {
    if (depth > kMaxDepth) fail("JSON nesting is deeper than 64 levels");
    JsonValue v;
    v.loc = here();
    if (pos_ >= text_.size()) fail("expected a JSON value, found end of file");
    char c = text_[pos_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') {
      v.kind = JsonValue::Kind::String;
      v.text = string();
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    for (const char* word : {"true", "false", "null"}) {
      if (text_.compare(pos_, std::char_traits<char>::length(word), word) == 0) {
        for (size_t i = 0; word[i]; ++i) advance();
        v.kind = word[0] == 'n' ? JsonValue::Kind::Null : JsonValue::Kind::Bool;
        v.boolean = word[0] == 't';
        return v;
      }
    }
    fail("expected a JSON value (a number, string, true, false, null, array or object), found " + describe_here());
  }

  JsonValue object(int depth) {
    JsonValue v;
    v.kind = JsonValue::Kind::Object;
    v.loc = here();
    advance();  // {
    skip_space();
    if (at('}')) {
      advance();
      return v;
    }
    while (true) {
      skip_space();
      JsonKey key;
      key.loc = here();
      if (!at('"')) fail("expected a member name in double quotes, found " + describe_here());
      key.name = string();
      for (const auto& [k, _] : v.members)
        if (k.name == key.name)
          throw_error(DiagId::JsonDuplicateKey, key.loc, key.name, k.loc.line, k.loc.col);
      skip_space();
      expect(':', "':' after the member name");
      skip_space();
      JsonValue member = value(depth + 1);
      v.members.emplace_back(std::move(key), std::move(member));
      skip_space();
      if (at(',')) {
        advance();
        continue;
      }
      expect('}', "',' or '}' after an object member");
      return v;
    }
  }

  JsonValue array(int depth) {
    JsonValue v;
    v.kind = JsonValue::Kind::Array;
    v.loc = here();
    advance();  // [
    skip_space();
    if (at(']')) {
      advance();
      return v;
    }
    while (true) {
      skip_space();
      v.elements.push_back(value(depth + 1));
      skip_space();
      if (at(',')) {
        advance();
        continue;
      }
      expect(']', "',' or ']' after an array element");
      return v;
    }
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  uint32_t hex4() {
    uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      if (pos_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_])))
        fail("expected 4 hexadecimal digits after \\u, found " + describe_here());
      char c = text_[pos_];
      cp = cp * 16 + uint32_t(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
      advance();
    }
    return cp;
  }

  std::string string() {
    advance();  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string (missing closing '\"')");
      char c = text_[pos_];
      if (c == '"') {
        advance();
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("a control character or line break inside a string; write it escaped, like \\n");
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance();
      if (pos_ >= text_.size()) fail("unterminated string (missing closing '\"')");
      char e = text_[pos_];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          advance();
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && text_.compare(pos_, 2, "\\u") == 0) {
            advance();
            advance();
            uint32_t lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("invalid UTF-16 surrogate pair in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          continue;
        }
        default: fail(std::string("unknown escape '\\") + e + "' in a string");
      }
      advance();
    }
  }

  JsonValue number() {
    JsonValue v;
    v.kind = JsonValue::Kind::Number;
    v.loc = here();
    size_t start = pos_;
    bool integral = true;
    if (at('-')) advance();
    if (at('0')) {
      advance();
    } else if (pos_ < text_.size() && text_[pos_] >= '1' && text_[pos_] <= '9') {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) advance();
    } else {
      fail("expected a digit in a number, found " + describe_here());
    }
    if (at('.')) {
      integral = false;
      advance();
      if (!(pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))))
        fail("expected a digit after the decimal point, found " + describe_here());
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) advance();
    }
    if (at('e') || at('E')) {
      integral = false;
      advance();
      if (at('+') || at('-')) advance();
      if (!(pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))))
        fail("expected a digit in the exponent, found " + describe_here());
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) advance();
    }
    v.text = text_.substr(start, pos_ - start);
    v.number = std::strtod(v.text.c_str(), nullptr);
    if (integral) {
      errno = 0;
      char* end = nullptr;
      long long i = std::strtoll(v.text.c_str(), &end, 10);
      v.is_integer = errno == 0;
      v.integer = i;
    }
    return v;
  }
};

}  // namespace

JsonValue parse_json(const std::string& text, uint32_t file) { return Parser(text, file).document(); }

}  // namespace texc::vdla
