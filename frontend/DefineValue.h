// DefineValue: the value of `-D NAME=VALUE` (cli.md), as written. A whole number binds a param, an
// int attribute, a dimension variable or a float attribute; a number with a fraction or an
// exponent (`-D eps=1e-3`) binds only a float attribute.
#pragma once
#include <cstdint>
#include <string>

namespace texc {

struct DefineValue {
  std::string text;         // as written on the command line
  double number = 0;        // its value
  bool is_integer = true;   // a whole number written without '.' or exponent
  int64_t integer = 0;      // its value when is_integer

  DefineValue() = default;
  DefineValue(int64_t v) : text(std::to_string(v)), number(double(v)), integer(v) {}  // NOLINT: implicit
  static DefineValue real(double v, std::string text) {
    DefineValue d;
    d.text = std::move(text);
    d.number = v;
    d.is_integer = false;
    return d;
  }
};

}  // namespace texc
