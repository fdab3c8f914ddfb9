// NumPy .npy files: read and write host tensors in NumPy's own format (versions 1.0, 2.0 and 3.0
// on reading, 1.0 — or 2.0 when the header needs it — on writing), little-endian, C order.
// Element types: <f4 <f8 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 (bool), and <V2 for bf16 (numpy has no
// bfloat16; its raw 2-byte values are what numpy writes for an ml_dtypes bfloat16 array).
// A file that cannot be read, is not .npy, is big-endian or Fortran-ordered, has another dtype,
// or is truncated throws NpyError with the path and the reason.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>

#include "backends/interp/Tensor.h"

namespace texc {

class NpyError : public std::runtime_error {
 public:
  explicit NpyError(const std::string& message) : std::runtime_error(message) {}
};

Tensor read_npy(const std::string& path);
void write_npy(const std::string& path, const Tensor& tensor);

/// "<f4" for f32, "|b1" for bool, ...
std::string npy_descr(Type t);
/// The element type of a descr ("<f4", "|u1", "=i4", "f4"), or nullopt.
std::optional<Type> type_of_npy_descr(const std::string& descr);

}  // namespace texc
