#include "tools/texc/ModelSource.h"

#include <map>
#include <memory>

#include "ir/Target.h"
#include "tools/driver/EnvironmentError.h"

namespace texc {

namespace {

/// A model imported in memory: its .tex text and its weights.
struct InMemoryModel {
  std::string tex_source;
  std::vector<NamedTensor> weights;
};

const InMemoryModel& imported_model(const CommandLine& cl) {
  static std::map<std::string, std::unique_ptr<InMemoryModel>> imported;  // by file
  std::unique_ptr<InMemoryModel>& slot = imported[cl.file];
  if (slot) return *slot;
#ifdef TEXC_HAVE_ONNX
  ImportedModel model = import_model(cl);
  slot = std::make_unique<InMemoryModel>();
  slot->tex_source = std::move(model.tex_source);
  for (ImportedWeight& w : model.weights) slot->weights.push_back({w.tex_name, std::move(w.value)});
  return *slot;
#else
  throw EnvironmentError("this texc was built without the ONNX importer (configured with TEXC_WITH_ONNX=OFF, or "
                         "libonnx-dev and libprotobuf-dev were not found): it cannot read the ONNX model " + cl.file);
#endif
}

}  // namespace

#ifdef TEXC_HAVE_ONNX
ImportedModel import_model(const CommandLine& cl) {
  try {
    OnnxImportOptions options;
    options.op_name = cl.op;
    // Layout planning (docs/onnx.md "Layouts"): by default on the CPU targets, where conv2d computes
    // in blocks anyway; not for `texc import`, whose .tex is for any target.
    std::string target = cl.target.empty() || is_host_alias(cl.target) ? host_target() : cl.target;
    options.blocked_layout = cl.layout.empty() ? cl.command != Command::Import && takes_cpu_schedules(target) : cl.layout == "nchwc";
    return import_onnx_file(cl.file, options);
  } catch (const OnnxImportError& e) {
    throw CommandLineError(cl.file + ": " + e.what());
  }
}
#endif

bool is_onnx_model(const std::string& file) {
  return file.size() > 5 && file.compare(file.size() - 5, 5, ".onnx") == 0;
}

ProgramSource model_program_source(const CommandLine& cl) {
  if (!is_onnx_model(cl.file)) return ProgramSource::file(cl.file);
  return ProgramSource::source_text(cl.file, imported_model(cl).tex_source);
}

const std::vector<NamedTensor>& model_weights(const CommandLine& cl, std::string* name) {
  static std::map<std::string, std::vector<NamedTensor>> read;  // --weights files, by path
  static const std::vector<NamedTensor> none;
  if (!cl.weights_file.empty()) {
    *name = cl.weights_file;
    auto it = read.find(cl.weights_file);
    if (it == read.end()) it = read.emplace(cl.weights_file, read_weights_file(cl.weights_file)).first;
    return it->second;
  }
  if (is_onnx_model(cl.file)) {
    *name = cl.file + " (its initializers)";
    return imported_model(cl).weights;
  }
  name->clear();
  return none;
}

}  // namespace texc
