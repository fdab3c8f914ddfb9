// texc import MODEL.onnx -o OUT.tex [--weights W] [--weights-dir DIR] [--op NAME]: the model as a .tex
// file and its weights as one container (W, default OUT.weights beside the .tex: `texc run --weights
// W`) and, with --weights-dir, also as .npy files for `texc run --inputs DIR` (docs/onnx.md).
// Nothing is written when the import fails (exit 1, the message naming the node, its op type and
// the opset).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "backends/interp/WeightsFile.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/onnx/ImportOnnx.h"
#include "tools/texc/Commands.h"
#include "tools/texc/ModelSource.h"

namespace texc {

int import_command(const CommandLine& cl) {
  ImportedModel model = import_model(cl);  // a model that cannot be imported: CommandLineError, exit 1
  std::filesystem::path tex(cl.output_stem);
  std::string container = cl.weights_file;
  if (container.empty()) container = (tex.parent_path() / (tex.stem().string() + ".weights")).string();
  try {
    if (!model.weights.empty()) {
      std::vector<NamedTensor> tensors;
      for (const ImportedWeight& w : model.weights) tensors.push_back({w.tex_name, w.value});
      write_weights_file(container, tensors);
    }
    if (!model.weights.empty() && !cl.weights_dir.empty()) write_weights(model, cl.weights_dir);
  } catch (const OnnxImportError& e) {
    std::cerr << "texc: error: " << e.what() << "\n";
    return 1;
  } catch (const WeightsFileError& e) {
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
  if (!model.weights.empty()) {
    std::cerr << " and " << model.weights.size() << " weights in " << container;
    if (!cl.weights_dir.empty()) std::cerr << " and under " << cl.weights_dir << "/";
  }
  std::cerr << "\n";
  return 0;
}

}  // namespace texc
