// ImportOnnx: an ONNX model as a .tex program (docs/onnx.md). The graph becomes one op named after
// it: its inputs are the op's tensor parameters (names sanitized), its initializers (and Constant
// nodes) `const` inputs whose values are the model's weights, and each node a call of a stdlib op
// (nn.conv2d, nn.pool, linalg.matmul, nn.softmax, ...) or, where none fits (broadcasting
// arithmetic, reshapes, other ranks), a tensor expression in index notation. Shapes are static:
// every dimension of the inputs must be a number, except a symbolic first one (a dynamic batch),
// which becomes a param of the .tex (import_onnx_bytes). An op type, attribute value or element type the
// importer does not support is an OnnxImportError naming the node, its op type and the opset.
//
// The weights go into a weights container (backends/interp/WeightsFile.h) for `texc run --weights`;
// write_weights also puts each as DIR/OP.NAME.npy, for `texc run --inputs DIR` (docs/cli.md).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/interp/Tensor.h"

namespace texc {

/// The model cannot be imported: not an ONNX model, or something in it the importer does not
/// support. The message names the node (`node 'conv1' (Conv, opset 13): ...`) where there is one.
class OnnxImportError : public std::runtime_error {
 public:
  explicit OnnxImportError(const std::string& message, std::string op_type = "")
      : std::runtime_error(message), op_type(std::move(op_type)) {}
  std::string op_type;  // the op type of the node the error is about ("" = the model as a whole)
};

struct OnnxImportOptions {
  std::string op_name;      // the op's name; "" = the graph's name, sanitized ("model" when it has none)
  std::string source_name;  // the model's file name, for the header comment and messages
  // Layout planning (docs/onnx.md "Layouts"): chains of convolutions kept in the channel-blocked
  // NCHW16c layout (conv2d_nchwc), with the ReLUs, clips, residual adds and pools between them,
  // converted from and to NCHW only where a node needs NCHW and at the graph's outputs. false:
  // every node on NCHW (conv2d, which blocks and unblocks inside each call on CPUs).
  bool blocked_layout = false;
};

/// One tensor parameter or output of the imported op.
struct ImportedTensor {
  std::string onnx_name;  // the graph's name for it
  std::string tex_name;   // the op's name for it (sanitized: a .tex identifier, unique)
  Type dtype;
  std::vector<int64_t> shape;  // the .tex shape: a rank-0 ONNX tensor is [1]
};

/// A const input of the imported op and its value (an initializer or a Constant node's).
struct ImportedWeight {
  std::string onnx_name;
  std::string tex_name;
  Tensor value;
};

/// A dynamic first dimension of the graph inputs, as a param of the .tex (`param batch = 1`, set
/// with -D): ONNX's name for it ("" when it has none) and the param's.
struct DynamicDim {
  std::string dim_param;
  std::string param;
};

struct ImportedModel {
  std::string op_name;
  std::string tex_source;                // the whole .tex file
  std::vector<ImportedTensor> inputs;    // the op's non-const inputs, in parameter order
  std::vector<ImportedTensor> outputs;   // the op's outputs, in the graph's order
  std::vector<ImportedWeight> weights;   // the op's const inputs, in parameter order
  std::vector<std::string> graph_inputs; // the graph's inputs that are not initializers, in order
                                         // (an input only a shape depends on is not one of the op's)
  int64_t opset = 0;                     // the model's default-domain opset
  std::vector<DynamicDim> dynamic_dims;  // the params standing for symbolic first dimensions
};

/// Imports a serialized ModelProto (the bytes of a .onnx file). Throws OnnxImportError.
ImportedModel import_onnx_bytes(const std::string& bytes, const OnnxImportOptions& options);

/// Reads and imports a .onnx file. Throws OnnxImportError (also when the file cannot be read).
ImportedModel import_onnx_file(const std::string& path, OnnxImportOptions options = {});

/// The op types of a .onnx file's nodes, in node order (for reports). Throws OnnxImportError.
std::vector<std::string> onnx_node_op_types(const std::string& path);

/// Writes each weight as DIR/OP.NAME.npy (the files `texc run --inputs DIR` reads), creating DIR.
/// Throws OnnxImportError when a file cannot be written.
void write_weights(const ImportedModel& model, const std::string& dir);

}  // namespace texc
