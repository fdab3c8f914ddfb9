#include "backends/interp/Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "backends/interp/Half.h"
#include "backends/interp/ScalarOps.h"
#include "ir/Diagnostics.h"

namespace texc {

void Tensor::FreeDeleter::operator()(void* p) const { std::free(p); }

Tensor::Tensor(Type dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  TEXC_CHECK(dtype_.is_scalar()) << "tensor of vector type " << dtype_.str();
  num_elements_ = 1;
  bool overflow = false;
  for (int64_t e : shape_) {
    TEXC_CHECK(e >= 0) << "negative extent in tensor shape " << shape_string(shape_);
    overflow = overflow || __builtin_mul_overflow(num_elements_, e, &num_elements_);
  }
  int64_t payload = 0;
  overflow = overflow || __builtin_mul_overflow(num_elements_, int64_t(element_bytes()), &payload) ||
             payload > INT64_MAX - 64;
  if (overflow) {
    num_elements_ = 0;
    throw AllocationError("cannot allocate " + describe() + ": its size in bytes does not fit in 64 bits");
  }
  size_t bytes = (std::max<size_t>(size_t(payload), 1) + 63) / 64 * 64;
  data_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, bytes)));
  if (!data_) throw AllocationError("cannot allocate " + std::to_string(bytes) + " bytes for " + describe());
  std::memset(data_.get(), 0, bytes);
}

Tensor::Tensor(const Tensor& other) : Tensor(other.dtype_, other.shape_) {
  std::memcpy(data_.get(), other.data_.get(), num_bytes());
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) *this = Tensor(other);
  return *this;
}

double Tensor::get_double(int64_t i) const {
  const uint8_t* p = data_.get();
  switch (dtype_.code) {
    case TypeCode::Float:
      if (dtype_.bits == 32) return reinterpret_cast<const float*>(p)[i];
      if (dtype_.bits == 64) return reinterpret_cast<const double*>(p)[i];
      return half_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
    case TypeCode::BFloat: return bfloat_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
    case TypeCode::UInt:
      if (dtype_.bits == 64) return double(uint64_t(get_int(i)));
      return double(get_int(i));
    default: return double(get_int(i));
  }
}

int64_t Tensor::get_int(int64_t i) const {
  const uint8_t* p = data_.get();
  switch (dtype_.code) {
    case TypeCode::Bool: return p[i] != 0;
    case TypeCode::Int:
      switch (dtype_.bits) {
        case 8: return reinterpret_cast<const int8_t*>(p)[i];
        case 16: return reinterpret_cast<const int16_t*>(p)[i];
        case 32: return reinterpret_cast<const int32_t*>(p)[i];
        default: return reinterpret_cast<const int64_t*>(p)[i];
      }
    case TypeCode::UInt:
      switch (dtype_.bits) {
        case 8: return reinterpret_cast<const uint8_t*>(p)[i];
        case 16: return reinterpret_cast<const uint16_t*>(p)[i];
        case 32: return reinterpret_cast<const uint32_t*>(p)[i];
        default: return reinterpret_cast<const int64_t*>(p)[i];
      }
    case TypeCode::Float:
    case TypeCode::BFloat: return cast_to_int(Int(64), dtype_, 0, get_double(i));
  }
  return 0;
}

void Tensor::set_double(int64_t i, double v) {
  uint8_t* p = data_.get();
  if (!dtype_.is_float()) {
    set_int(i, cast_to_int(dtype_, Float(64), 0, v));
    return;
  }
  if (dtype_.is_bfloat()) reinterpret_cast<uint16_t*>(p)[i] = float_to_bfloat(float(v));
  else if (dtype_.bits == 32) reinterpret_cast<float*>(p)[i] = float(v);
  else if (dtype_.bits == 64) reinterpret_cast<double*>(p)[i] = v;
  else reinterpret_cast<uint16_t*>(p)[i] = float_to_half(float(v));
}

void Tensor::set_int(int64_t i, int64_t v) {
  uint8_t* p = data_.get();
  if (dtype_.is_float()) {
    set_double(i, cast_to_float(Float(64), Int(64), v, 0));
    return;
  }
  if (dtype_.is_bool()) {
    p[i] = v != 0;
    return;
  }
  switch (dtype_.bits) {
    case 8: reinterpret_cast<uint8_t*>(p)[i] = uint8_t(v); break;
    case 16: reinterpret_cast<uint16_t*>(p)[i] = uint16_t(v); break;
    case 32: reinterpret_cast<uint32_t*>(p)[i] = uint32_t(v); break;
    default: reinterpret_cast<int64_t*>(p)[i] = v; break;
  }
}

int64_t Tensor::flat_index(const std::vector<int64_t>& index) const {
  int64_t flat = 0;
  for (size_t d = 0; d < shape_.size(); ++d) flat = flat * shape_[d] + index[d];
  return flat;
}

std::vector<int64_t> Tensor::unflatten(int64_t i) const {
  std::vector<int64_t> index(shape_.size());
  for (size_t d = shape_.size(); d-- > 0;) {
    index[d] = shape_[d] ? i % shape_[d] : 0;
    i = shape_[d] ? i / shape_[d] : 0;
  }
  return index;
}

void random_int_range(Type t, int64_t* lo, int64_t* hi) {
  if (t.is_bool()) {
    *lo = 0, *hi = 1;
  } else if (t.bits == 8) {
    *lo = t.is_int() ? -8 : 0, *hi = t.is_int() ? 8 : 16;
  } else {
    *lo = t.is_int() ? -100 : 0, *hi = 100;
  }
}

namespace {
// The values integer type t holds (bool: 0 and 1); 64-bit types are kept to +-2^62 so that the
// span of a range fits.
std::pair<int64_t, int64_t> int_type_range(Type t) {
  if (t.is_bool()) return {0, 1};
  int bits = std::min(int(t.bits), 63);
  if (t.is_int()) return {-(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1};
  return {0, bits == 63 ? (int64_t(1) << 62) : (int64_t(1) << bits) - 1};
}

// splitmix64: small, fast and identical on every platform (std distributions are not).
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

void Tensor::fill_random(uint64_t seed) {
  if (dtype_.is_float()) return fill_random(seed, -1.0, 1.0);
  int64_t lo, hi;
  random_int_range(dtype_, &lo, &hi);
  fill_random(seed, double(lo), double(hi));
}

bool random_range_holds_a_value(Type t, double lo, double hi) {
  if (!(lo <= hi)) return false;
  if (t.is_float()) return std::isfinite(lo) && std::isfinite(hi);
  auto [type_lo, type_hi] = int_type_range(t);
  return std::ceil(std::max(lo, double(type_lo))) <= std::floor(std::min(hi, double(type_hi)));
}

void Tensor::fill_random(uint64_t seed, double lo, double hi) {
  uint64_t state = seed * 0x2545f4914f6cdd1dull + 1;
  if (dtype_.is_float()) {
    for (int64_t i = 0; i < num_elements_; ++i) {
      double u = double(next_random(state) >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
      set_double(i, lo + (hi - lo) * u);
    }
    return;
  }
  auto [type_lo, type_hi] = int_type_range(dtype_);
  int64_t first = std::max(type_lo, int64_t(std::ceil(std::max(lo, double(type_lo)))));
  int64_t last = std::min(type_hi, int64_t(std::floor(std::min(hi, double(type_hi)))));
  uint64_t span = uint64_t(last - first) + 1;
  for (int64_t i = 0; i < num_elements_; ++i) set_int(i, first + int64_t(next_random(state) % span));
}

void Tensor::fill_poison() {
  if (dtype_.is_float()) {
    for (int64_t i = 0; i < num_elements_; ++i) set_double(i, std::nan(""));
  } else if (dtype_.is_bool()) {
    std::memset(data_.get(), 1, num_bytes());
  } else {
    std::memset(data_.get(), 0xA5, num_bytes());
  }
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string Tensor::describe() const { return dtype_.str() + shape_string(shape_); }

}  // namespace texc
