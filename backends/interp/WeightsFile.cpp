#include "backends/interp/WeightsFile.h"

#include <cstring>
#include <fstream>
#include <optional>

#include "backends/interp/RunOp.h"
#include "runtime/texrt_weights.h"

namespace texc {

namespace {

void put(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += char((v >> (8 * i)) & 0xff);
}

uint64_t aligned(uint64_t offset) {
  return (offset + TEXRT_WEIGHTS_ALIGNMENT - 1) / TEXRT_WEIGHTS_ALIGNMENT * TEXRT_WEIGHTS_ALIGNMENT;
}

}  // namespace

void write_weights_file(const std::string& path, const std::vector<NamedTensor>& tensors) {
  // The directory's size first, so that every entry can say where its data starts.
  uint64_t directory_end = 16;
  for (const NamedTensor& t : tensors) directory_end += 4 + t.name.size() + 8 + 4 + 8 * t.value.shape().size() + 16;
  std::string head = TEXRT_WEIGHTS_MAGIC;
  put(head, TEXRT_WEIGHTS_VERSION, 4);
  put(head, tensors.size(), 4);
  uint64_t offset = directory_end;
  for (const NamedTensor& t : tensors) {
    offset = aligned(offset);
    put(head, t.name.size(), 4);
    head += t.name;
    std::string dtype = t.value.dtype().str();
    dtype.resize(8, '\0');
    head += dtype;
    put(head, t.value.shape().size(), 4);
    for (int64_t d : t.value.shape()) put(head, uint64_t(d), 8);
    put(head, offset, 8);
    put(head, t.value.num_bytes(), 8);
    offset += t.value.num_bytes();
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw WeightsFileError("cannot write '" + path + "'");
  out.write(head.data(), std::streamsize(head.size()));
  uint64_t at = head.size();
  const std::string zeros(TEXRT_WEIGHTS_ALIGNMENT, '\0');
  for (const NamedTensor& t : tensors) {  // host tensors are little-endian, C order: written as they are
    out.write(zeros.data(), std::streamsize(aligned(at) - at));
    out.write(static_cast<const char*>(t.value.data()), std::streamsize(t.value.num_bytes()));
    at = aligned(at) + t.value.num_bytes();
  }
  out.close();
  if (!out) throw WeightsFileError("cannot write '" + path + "'");
}

std::vector<NamedTensor> read_weights_file(const std::string& path) {
  texrt_weights* w = texrt_weights_load(path.c_str());
  if (!w) throw WeightsFileError(texrt_weights_last_error());
  std::vector<NamedTensor> tensors;
  for (int i = 0; i < texrt_weights_count(w); ++i) {
    const char* name;
    const char* dtype;
    int rank;
    const int64_t* dims;
    const void* data;
    texrt_weights_entry(w, i, &name, &dtype, &rank, &dims, &data);
    std::optional<Type> type = Type::parse(dtype);  // the reader accepted it: a texc type name
    Tensor value(*type, std::vector<int64_t>(dims, dims + rank));
    if (value.num_bytes()) std::memcpy(value.data(), data, value.num_bytes());
    tensors.push_back({name, std::move(value)});
  }
  texrt_weights_free(w);
  return tensors;
}

const Tensor* find_weight(const std::vector<NamedTensor>& weights, const std::string& path, const OpDef& op,
                          const Buffer& b) {
  for (const NamedTensor& t : weights) {
    if (t.name != b->name) continue;
    std::vector<int64_t> shape = buffer_shape(b);
    if (t.value.dtype() != b->dtype || t.value.shape() != shape)
      throw WeightsFileError(path + ": tensor '" + t.name + "' is " + t.value.describe() + ", but input '" + b->name +
                             "' of op '" + op.name + "' is " + b->dtype.str() + shape_string(shape));
    return &t.value;
  }
  return nullptr;
}

void check_const_inputs(const std::vector<NamedTensor>& weights, const std::string& path, const OpDef& op) {
  for (const Buffer& b : op.inputs)
    if (op.const_inputs.count(b->name) && !find_weight(weights, path, op, b))
      throw WeightsFileError(path + ": has no tensor '" + b->name + "' for the const input '" + b->name + "' of op '" +
                             op.name + "' (" + b->dtype.str() + shape_string(buffer_shape(b)) + ")");
}

}  // namespace texc
