// texc import MODEL.onnx -o OUT.tex [--weights-dir DIR] [--op NAME]: the model as a .tex file and its
// weights as .npy files for `texc run --inputs DIR` (docs/onnx.md). Nothing is written when the
// import fails (exit 1, the message naming the node, its op type and the opset).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "tools/driver/EnvironmentError.h"
#include "tools/onnx/ImportOnnx.h"
#include "tools/texc/Commands.h"

namespace texc {

int import_command(const CommandLine& cl) {
  ImportedModel model;
  try {
    OnnxImportOptions options;
    options.op_name = cl.op;
    model = import_onnx_file(cl.file, options);
  } catch (const OnnxImportError& e) {
    std::cerr << "texc: error: " << cl.file << ": " << e.what() << "\n";
    return 1;
  }
  std::filesystem::path tex(cl.output_stem);
  std::string dir = cl.weights_dir;
  if (dir.empty()) dir = (tex.parent_path() / (tex.stem().string() + ".weights")).string();
  try {
    if (!model.weights.empty()) write_weights(model, dir);
  } catch (const OnnxImportError& e) {
    std::cerr << "texc: error: " << e.what() << "\n";
    return 1;
  }
  std::ofstream out(cl.output_stem, std::ios::binary);
  out << model.tex_source;
  out.close();
  if (!out) {
    std::cerr << "texc: error: cannot write " << cl.output_stem << "\n";
    return 1;
  }
  std::cerr << "texc: wrote " << cl.output_stem << " (op '" << model.op_name << "', " << model.inputs.size()
            << " inputs, " << model.outputs.size() << " outputs)";
  if (!model.weights.empty()) std::cerr << " and " << model.weights.size() << " weights under " << dir << "/";
  std::cerr << "\n";
  return 0;
}

}  // namespace texc
