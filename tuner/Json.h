// Json: the small JSON reader and writer that tuning records need (one object per line). Numbers
// are doubles; objects keep their keys' order. parse_json returns nullopt for anything malformed
// (a line cut short by a killed run), never throws.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace texc {

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;

  static Json num(double v) { Json j; j.kind = Kind::Number; j.number = v; return j; }
  static Json str(std::string v) { Json j; j.kind = Kind::String; j.string = std::move(v); return j; }
  static Json boolean_value(bool v) { Json j; j.kind = Kind::Bool; j.boolean = v; return j; }
  static Json arr() { Json j; j.kind = Kind::Array; return j; }
  static Json obj() { Json j; j.kind = Kind::Object; return j; }

  /// The member `key` of an object, or null.
  const Json* get(const std::string& key) const;
  void set(const std::string& key, Json value) { object.emplace_back(key, std::move(value)); }
  /// Compact, one line; numbers with up to 7 significant digits (integers exactly).
  std::string dump() const;
};

std::optional<Json> parse_json(const std::string& text);
/// `s` as a JSON string literal, quotes included.
std::string json_quote(const std::string& s);

}  // namespace texc
