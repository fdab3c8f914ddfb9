// OnnxTensor: ONNX TensorProto values as texc host tensors (backends/interp/Tensor.h), and ONNX's
// element types as texc's. Used by the importer (initializers, Constant nodes) and by the
// conformance driver (the test cases' input_N.pb / output_N.pb files).
#pragma once
#include <optional>
#include <stdexcept>
#include <string>

#include "backends/interp/Tensor.h"

namespace onnx {
class TensorProto;
}

namespace texc {

/// A TensorProto texc cannot take (an element type it has no counterpart for, external data,
/// a size that does not match the shape), or a .pb file that is not one. The message says which.
class OnnxTensorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// texc's element type of an ONNX TensorProto::DataType code (FLOAT -> f32, INT64 -> i64, BOOL ->
/// bool, ...); nullopt for the types texc has none of (string, complex, bfloat16).
std::optional<Type> texc_type_of_onnx(int onnx_data_type);

/// The name ONNX gives a data type code ("FLOAT", "STRING", ...), for messages.
std::string onnx_type_name(int onnx_data_type);

/// The tensor a TensorProto holds (raw_data or the typed fields). A rank-0 tensor becomes shape [1].
Tensor tensor_of_onnx(const onnx::TensorProto& proto);

/// Reads a serialized TensorProto (a test case's input_0.pb). Throws OnnxTensorError.
Tensor read_onnx_tensor_file(const std::string& path, std::string* name = nullptr);

}  // namespace texc
