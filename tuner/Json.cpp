#include "tuner/Json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace texc {

const Json* Json::get(const std::string& key) const {
  for (const auto& [k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string Json::dump() const {
  switch (kind) {
    case Kind::Null: return "null";
    case Kind::Bool: return boolean ? "true" : "false";
    case Kind::Number: {
      if (!std::isfinite(number)) return "null";
      char buf[32];
      if (number == std::floor(number) && std::fabs(number) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", number);
      else std::snprintf(buf, sizeof buf, "%.7g", number);
      return buf;
    }
    case Kind::String: return json_quote(string);
    case Kind::Array: {
      std::string out = "[";
      for (size_t i = 0; i < array.size(); ++i) out += (i ? ", " : "") + array[i].dump();
      return out + "]";
    }
    case Kind::Object: {
      std::string out = "{";
      for (size_t i = 0; i < object.size(); ++i)
        out += (i ? ", " : "") + json_quote(object[i].first) + ": " + object[i].second.dump();
      return out + "}";
    }
  }
  return "null";
}

namespace {

struct Parser {
  const std::string& s;
  size_t p = 0;
  bool ok = true;

  void ws() {
    while (p < s.size() && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r')) ++p;
  }
  bool eat(char c) {
    ws();
    if (p < s.size() && s[p] == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool literal(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(p, n, word) != 0) return false;
    p += n;
    return true;
  }
  std::optional<std::string> string() {
    if (!eat('"')) return std::nullopt;
    std::string out;
    while (p < s.size() && s[p] != '"') {
      char c = s[p++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p >= s.size()) return std::nullopt;
      char e = s[p++];
      if (e == 'n') out += '\n';
      else if (e == 't') out += '\t';
      else if (e == 'r') out += '\r';
      else if (e == 'b') out += '\b';
      else if (e == 'f') out += '\f';
      else if (e == 'u') {
        if (p + 4 > s.size()) return std::nullopt;
        long code = std::strtol(s.substr(p, 4).c_str(), nullptr, 16);
        p += 4;
        if (code < 0x80) out += char(code);
        else if (code < 0x800) { out += char(0xC0 | (code >> 6)); out += char(0x80 | (code & 0x3F)); }
        else { out += char(0xE0 | (code >> 12)); out += char(0x80 | ((code >> 6) & 0x3F)); out += char(0x80 | (code & 0x3F)); }
      } else out += e;
    }
    if (p >= s.size()) return std::nullopt;
    ++p;
    return out;
  }
  std::optional<Json> value(int depth) {
    if (depth > 64) return std::nullopt;
    ws();
    if (p >= s.size()) return std::nullopt;
    char c = s[p];
    if (c == '{') {
      ++p;
      Json j = Json::obj();
      if (eat('}')) return j;
      do {
        auto key = string();
        if (!key || !eat(':')) return std::nullopt;
        auto v = value(depth + 1);
        if (!v) return std::nullopt;
        j.object.emplace_back(*key, std::move(*v));
      } while (eat(','));
      if (!eat('}')) return std::nullopt;
      return j;
    }
    if (c == '[') {
      ++p;
      Json j = Json::arr();
      if (eat(']')) return j;
      do {
        auto v = value(depth + 1);
        if (!v) return std::nullopt;
        j.array.push_back(std::move(*v));
      } while (eat(','));
      if (!eat(']')) return std::nullopt;
      return j;
    }
    if (c == '"') {
      auto v = string();
      if (!v) return std::nullopt;
      return Json::str(*v);
    }
    if (literal("true")) return Json::boolean_value(true);
    if (literal("false")) return Json::boolean_value(false);
    if (literal("null")) return Json();
    const char* start = s.c_str() + p;
    char* end = nullptr;
    double d = std::strtod(start, &end);
    if (end == start) return std::nullopt;
    p += size_t(end - start);
    return Json::num(d);
  }
};

}  // namespace

std::optional<Json> parse_json(const std::string& text) {
  Parser parser{text};
  auto v = parser.value(0);
  parser.ws();
  if (!v || parser.p != text.size()) return std::nullopt;
  return v;
}

}  // namespace texc
