// Type: the element type of an expression or buffer (f32, i8, bool, ...), optionally a vector.
// bf16 (bfloat16: 1 sign, 8 exponent, 7 mantissa bits) has its own code, BFloat, beside the IEEE
// Float formats f16/f32/f64; is_float() is true for both, so every floating-point rule applies to
// bf16, and code that picks a format by `bits` must ask is_bfloat() first (f16 and bf16 are both 16 bits).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace texc {

enum class TypeCode : uint8_t { Bool, Int, UInt, Float, BFloat };

struct Type {
  TypeCode code = TypeCode::Int;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  constexpr Type() = default;
  constexpr Type(TypeCode c, int b, int l = 1) : code(c), bits(uint8_t(b)), lanes(uint16_t(l)) {}

  bool is_bool() const { return code == TypeCode::Bool; }
  bool is_int() const { return code == TypeCode::Int; }
  bool is_uint() const { return code == TypeCode::UInt; }
  /// Any floating-point type: f16, bf16, f32, f64.
  bool is_float() const { return code == TypeCode::Float || code == TypeCode::BFloat; }
  /// bf16, the one BFloat type.
  bool is_bfloat() const { return code == TypeCode::BFloat; }
  /// f16 (IEEE binary16), not bf16.
  bool is_half() const { return code == TypeCode::Float && bits == 16; }
  /// Int or UInt (not bool).
  bool is_integer() const { return is_int() || is_uint(); }
  bool is_scalar() const { return lanes == 1; }
  bool is_vector() const { return lanes > 1; }
  Type element_of() const { return Type(code, bits, 1); }
  Type with_lanes(int l) const { return Type(code, bits, l); }
  int bytes() const { return is_bool() ? 1 : (bits + 7) / 8; }

  bool operator==(const Type&) const = default;

  /// "f32", "i8", "bool", "f32x8".
  std::string str() const;
  /// Parses a scalar element type name ("f32", "u8", "bool"); nullopt if not a type name.
  static std::optional<Type> parse(const std::string& name);
};

inline constexpr Type Bool(int lanes = 1) { return Type(TypeCode::Bool, 1, lanes); }
inline constexpr Type Int(int bits, int lanes = 1) { return Type(TypeCode::Int, bits, lanes); }
inline constexpr Type UInt(int bits, int lanes = 1) { return Type(TypeCode::UInt, bits, lanes); }
inline constexpr Type Float(int bits, int lanes = 1) { return Type(TypeCode::Float, bits, lanes); }
inline constexpr Type BFloat16(int lanes = 1) { return Type(TypeCode::BFloat, 16, lanes); }
/// The type of loop variables, indices and sizes.
inline constexpr Type Index() { return Int(64); }

}  // namespace texc
