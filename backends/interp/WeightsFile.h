// WeightsFile: texc's weights container (`model.weights`: docs/onnx.md "The weights container") as
// host tensors. Reading goes through the runtime's reader (runtime/texrt_weights.h), so `texc run
// --weights`, `texc FILE --weights` and a C program calling texrt_weights_load accept and refuse the
// same files; writing is here. A file that cannot be read or written, is not a container, or is
// truncated or inconsistent throws WeightsFileError with the path and the reason.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/interp/Tensor.h"
#include "ir/Op.h"

namespace texc {

class WeightsFileError : public std::runtime_error {
 public:
  explicit WeightsFileError(const std::string& message) : std::runtime_error(message) {}
};

/// One tensor of a container: its name (the .tex parameter's) and value.
struct NamedTensor {
  std::string name;
  Tensor value;
};

/// Writes the tensors, in order, as a weights container (version 1) at `path`.
void write_weights_file(const std::string& path, const std::vector<NamedTensor>& tensors);

/// Reads every tensor of the container at `path`, in file order.
std::vector<NamedTensor> read_weights_file(const std::string& path);

/// The tensor `b` (an input of op `op`) from `weights`, or nullptr when it has none of that name.
/// One of that name with another dtype or shape throws WeightsFileError naming both (`path` names
/// the file in the message).
const Tensor* find_weight(const std::vector<NamedTensor>& weights, const std::string& path, const OpDef& op,
                          const Buffer& b);

/// Every const input of `op` has a tensor in `weights` of its dtype and shape; else throws
/// WeightsFileError naming the first that is missing or differs.
void check_const_inputs(const std::vector<NamedTensor>& weights, const std::string& path, const OpDef& op);

}  // namespace texc
