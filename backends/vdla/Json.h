// A small JSON reader that remembers where each value came from (for located diagnostics).
//
// parse_json(text, file) parses one JSON document (RFC 8259: objects, arrays, strings with
// escapes, numbers, true/false/null). Every JsonValue carries the SourceLoc of its first
// character; object members keep their key's location and their order, and duplicate keys are
// an error. A syntax error throws UserError (DiagId::JsonSyntax) located at the offending
// character. `file` is a SourceManager id, so the diagnostic quotes the line.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/SourceLoc.h"

namespace texc::vdla {

struct JsonValue;

/// An object member's key and where it was written.
struct JsonKey {
  std::string name;
  SourceLoc loc;
};

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  SourceLoc loc;
  bool boolean = false;
  double number = 0;
  bool is_integer = false;  // the number was written without fraction or exponent
  int64_t integer = 0;      // valid when is_integer (and it fits in int64)
  std::string text;         // the number as written, or the string's value
  std::vector<JsonValue> elements;                  // Array
  std::vector<std::pair<JsonKey, JsonValue>> members;  // Object, in source order

  /// "null", "a boolean", "a number", "a string", "an array", "an object".
  const char* kind_name() const;
};

/// Parses `text` (the contents of SourceManager file `file`). Throws UserError on a syntax error.
JsonValue parse_json(const std::string& text, uint32_t file);

}  // namespace texc::vdla
