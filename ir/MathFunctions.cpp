#include "ir/MathFunctions.h"

namespace texc {

const std::vector<MathFunctionInfo>& math_functions() {
  static const std::vector<MathFunctionInfo> table = {
      {"exp", 1, false, false},   {"exp2", 1, false, false},  {"expm1", 1, false, false},
      {"log", 1, false, false},   {"log2", 1, false, false},  {"log1p", 1, false, false},
      {"sqrt", 1, false, false},  {"rsqrt", 1, false, false}, {"pow", 2, false, false},
      {"tanh", 1, false, false},  {"sigmoid", 1, false, false}, {"erf", 1, false, false},
      {"erfc", 1, false, false},  {"sin", 1, false, false},   {"cos", 1, false, false},
      {"atan2", 2, false, false}, {"floor", 1, false, false}, {"ceil", 1, false, false},
      {"round", 1, false, false}, {"trunc", 1, false, false}, {"fmod", 2, false, false},
      {"abs", 1, true, false},    {"isnan", 1, false, true},  {"isinf", 1, false, true},
  };
  return table;
}

const MathFunctionInfo* find_math_function_info(const std::string& name) {
  for (const MathFunctionInfo& f : math_functions())
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace texc
