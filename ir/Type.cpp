#include "ir/Type.h"

namespace texc {

std::string Type::str() const {
  std::string s;
  switch (code) {
    case TypeCode::Bool: s = "bool"; break;
    case TypeCode::Int: s = "i" + std::to_string(bits); break;
    case TypeCode::UInt: s = "u" + std::to_string(bits); break;
    case TypeCode::Float: s = "f" + std::to_string(bits); break;
    case TypeCode::BFloat: s = "bf" + std::to_string(bits); break;
  }
  if (lanes > 1) s += "x" + std::to_string(lanes);
  return s;
}

std::optional<Type> Type::parse(const std::string& name) {
  static const struct { const char* name; Type type; } table[] = {
      {"bool", Bool()},  {"i8", Int(8)},    {"i16", Int(16)},  {"i32", Int(32)},
      {"i64", Int(64)},  {"u8", UInt(8)},   {"u16", UInt(16)}, {"u32", UInt(32)},
      {"u64", UInt(64)}, {"f16", Float(16)}, {"f32", Float(32)}, {"f64", Float(64)},
      {"bf16", BFloat16()},
  };
  for (const auto& e : table)
    if (name == e.name) return e.type;
  return std::nullopt;
}

}  // namespace texc
