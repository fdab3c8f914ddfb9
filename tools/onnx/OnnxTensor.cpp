#include "tools/onnx/OnnxTensor.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include <onnx/onnx_pb.h>

namespace texc {

std::optional<Type> texc_type_of_onnx(int t) {
  switch (t) {
    case onnx::TensorProto::FLOAT: return Float(32);
    case onnx::TensorProto::DOUBLE: return Float(64);
    case onnx::TensorProto::FLOAT16: return Float(16);
    case onnx::TensorProto::INT8: return Int(8);
    case onnx::TensorProto::INT16: return Int(16);
    case onnx::TensorProto::INT32: return Int(32);
    case onnx::TensorProto::INT64: return Int(64);
    case onnx::TensorProto::UINT8: return UInt(8);
    case onnx::TensorProto::UINT16: return UInt(16);
    case onnx::TensorProto::UINT32: return UInt(32);
    case onnx::TensorProto::UINT64: return UInt(64);
    case onnx::TensorProto::BOOL: return Bool();
    default: return std::nullopt;
  }
}

std::string onnx_type_name(int t) {
  if (onnx::TensorProto::DataType_IsValid(t))
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(t));
  return "data type " + std::to_string(t);
}

Tensor tensor_of_onnx(const onnx::TensorProto& p) {
  std::optional<Type> type = texc_type_of_onnx(p.data_type());
  if (!type) throw OnnxTensorError("tensor '" + p.name() + "' has element type " + onnx_type_name(p.data_type()) +
                                   ", which texc does not have");
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    throw OnnxTensorError("tensor '" + p.name() + "' keeps its data in an external file, which texc does not read");
  std::vector<int64_t> shape(p.dims().begin(), p.dims().end());
  if (shape.empty()) shape = {1};
  for (int64_t d : shape)
    if (d < 0) throw OnnxTensorError("tensor '" + p.name() + "' has a negative dimension");
  // the element count first (overflow-checked), so that a shape its data do not fill allocates nothing
  int64_t n = 1;
  for (int64_t d : shape)
    if (d != 0 && n > INT64_MAX / 16 / d) throw OnnxTensorError("tensor '" + p.name() + "' of shape " + shape_string(shape) + " is too large");
    else n *= d;
  auto mismatch = [&](int64_t have) {
    return OnnxTensorError("tensor '" + p.name() + "' of shape " + shape_string(shape) + " holds " +
                           std::to_string(have) + " values, not " + std::to_string(n));
  };
  int64_t have = p.has_raw_data() ? int64_t(p.raw_data().size()) / type->bytes()
                 : p.data_type() == onnx::TensorProto::FLOAT ? p.float_data_size()
                 : p.data_type() == onnx::TensorProto::DOUBLE ? p.double_data_size()
                 : p.data_type() == onnx::TensorProto::INT64 ? p.int64_data_size()
                 : (p.data_type() == onnx::TensorProto::UINT32 || p.data_type() == onnx::TensorProto::UINT64) ? p.uint64_data_size()
                 : p.int32_data_size();
  if (have != n || (p.has_raw_data() && p.raw_data().size() != size_t(n) * size_t(type->bytes()))) throw mismatch(have);
  Tensor t(*type, shape);
  if (p.has_raw_data()) {
    std::memcpy(t.data(), p.raw_data().data(), t.num_bytes());  // little-endian, as texc's hosts
    return t;
  }
  switch (p.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (p.float_data_size() != n) throw mismatch(p.float_data_size());
      for (int64_t i = 0; i < n; ++i) t.set_double(i, p.float_data(int(i)));
      break;
    case onnx::TensorProto::DOUBLE:
      if (p.double_data_size() != n) throw mismatch(p.double_data_size());
      for (int64_t i = 0; i < n; ++i) t.set_double(i, p.double_data(int(i)));
      break;
    case onnx::TensorProto::INT64:
      if (p.int64_data_size() != n) throw mismatch(p.int64_data_size());
      for (int64_t i = 0; i < n; ++i) t.set_int(i, p.int64_data(int(i)));
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      if (p.uint64_data_size() != n) throw mismatch(p.uint64_data_size());
      for (int64_t i = 0; i < n; ++i) t.set_int(i, int64_t(p.uint64_data(int(i))));
      break;
    case onnx::TensorProto::FLOAT16: {  // int32_data holds the half's bits
      if (p.int32_data_size() != n) throw mismatch(p.int32_data_size());
      auto* bits = static_cast<uint16_t*>(t.data());
      for (int64_t i = 0; i < n; ++i) bits[i] = uint16_t(p.int32_data(int(i)));
      break;
    }
    default:  // INT8, INT16, INT32, UINT8, UINT16, BOOL: int32_data
      if (p.int32_data_size() != n) throw mismatch(p.int32_data_size());
      for (int64_t i = 0; i < n; ++i) t.set_int(i, p.int32_data(int(i)));
      break;
  }
  return t;
}

Tensor read_onnx_tensor_file(const std::string& path, std::string* name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw OnnxTensorError("cannot open " + path);
  std::stringstream bytes;
  bytes << in.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes.str())) throw OnnxTensorError(path + " is not a serialized ONNX TensorProto");
  if (name) *name = proto.name();
  try {
    return tensor_of_onnx(proto);
  } catch (const OnnxTensorError& e) {
    throw OnnxTensorError(path + ": " + e.what());
  }
}

}  // namespace texc
