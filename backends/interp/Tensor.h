// Tensor: a host tensor — one scalar element type, a shape, and contiguous row-major (C order)
// storage, 64-byte aligned. It is what moves data between the interpreters, JIT-compiled ops,
// .npy files and the output check.
//
// Element access by flat index goes through the host representations of ScalarOps.h: floats as
// double (f16 stored as IEEE half bits, bf16 as the upper half of an f32), integers as int64 (wrapped to the element width on
// store), bool as 0/1 in one byte. fill_random gives reproducible values for a seed: floats
// uniform in [-1, 1]; integers uniform over a small range suited to the type (see
// random_int_range) so that products and sums of a few of them stay exact; bool uniform.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/Type.h"

namespace texc {

/// Memory for a tensor could not be allocated (or its size does not fit in 64 bits). Not a crash and
/// not a bug: `texc run` reports it as the op's failure, "cannot allocate N bytes for ...".
class AllocationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Tensor {
 public:
  Tensor() = default;
  /// A zero-filled tensor. dtype must be scalar; every extent >= 0. Throws AllocationError when the
  /// memory cannot be allocated or its size overflows 64 bits.
  Tensor(Type dtype, std::vector<int64_t> shape);
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;

  Type dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return int(shape_.size()); }
  int64_t num_elements() const { return num_elements_; }
  size_t element_bytes() const { return size_t(dtype_.bytes()); }
  size_t num_bytes() const { return size_t(num_elements_) * element_bytes(); }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }

  /// Element at flat (row-major) index i as a double (any element type).
  double get_double(int64_t i) const;
  /// Element at flat index i as an int64 (integer and bool types; floats truncate toward zero).
  int64_t get_int(int64_t i) const;
  /// Stores v at flat index i, rounded to the element type (integers: truncated and wrapped).
  void set_double(int64_t i, double v);
  /// Stores v at flat index i, wrapped to the element type (floats: converted).
  void set_int(int64_t i, int64_t v);

  /// Row-major flat index of a multi-dimensional index (no bounds check).
  int64_t flat_index(const std::vector<int64_t>& index) const;
  /// The multi-dimensional index of flat index i.
  std::vector<int64_t> unflatten(int64_t i) const;

  /// Reproducible random contents for `seed` (see the file comment).
  void fill_random(uint64_t seed);
  /// The same, uniform in [lo, hi] instead (integers and bool: the whole numbers in [lo, hi] that
  /// the type holds; lo <= hi, and at least one such number).
  void fill_random(uint64_t seed, double lo, double hi);
  /// Fills with a value that a correct op never leaves behind unnoticed: NaN for floats, a
  /// 0xA5 byte pattern for integers, true for bool. Used before running an op so that unwritten
  /// output elements fail the check.
  void fill_poison();

  /// "f32[2, 3]".
  std::string describe() const;

 private:
  struct FreeDeleter {
    void operator()(void* p) const;
  };
  Type dtype_ = Float(32);
  std::vector<int64_t> shape_;
  int64_t num_elements_ = 0;
  std::unique_ptr<uint8_t[], FreeDeleter> data_;
};

/// The inclusive range of random integer values for an integer type: i8 [-8, 8], u8 [0, 16],
/// i16/i32/i64 [-100, 100], u16/u32/u64 [0, 100].
void random_int_range(Type t, int64_t* lo, int64_t* hi);

/// Whether fill_random(seed, lo, hi) has values to choose from for type t: lo <= hi, both finite,
/// and for integers and bool a whole number in [lo, hi] that the type holds.
bool random_range_holds_a_value(Type t, double lo, double hi);

/// "[2, 3]".
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace texc
