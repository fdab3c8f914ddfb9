// MathFunctions: the table of the language's math functions (exp, erf, atan2, isnan, ...): each
// one's name, how many arguments it takes and what its result is. The frontend checks calls
// against it, the IR printer and parser print and read its names as plain calls, and every
// backend implements exactly these (docs/language.md, "Built-in functions").
#pragma once
#include <string>
#include <vector>

namespace texc {

struct MathFunctionInfo {
  const char* name;
  int arity;              // 1 or 2; two arguments have one type
  bool integer_ok;        // also defined on integers (abs)
  bool returns_bool;      // isnan, isinf: a bool of the argument's lanes; else the argument's type
};

/// Every math function, in the order docs/language.md lists them.
const std::vector<MathFunctionInfo>& math_functions();
/// The entry for `name`, or nullptr.
const MathFunctionInfo* find_math_function_info(const std::string& name);

}  // namespace texc
