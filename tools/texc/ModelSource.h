// ModelSource: what a command line's FILE is (docs/onnx.md "Importing in memory"): a .tex file, or
// an ONNX model (`.onnx`), which is imported in memory (tools/onnx/ImportOnnx.h) without writing the
// .tex: the program is the imported text, the weights the model's initializers. The weights of a
// command line are those of --weights W (a container: backends/interp/WeightsFile.h) when given,
// else the imported model's. The import runs once per process, whoever asks first.
#pragma once
#include <string>
#include <vector>

#include "backends/interp/WeightsFile.h"
#include "tools/driver/LoadProgram.h"
#include "tools/texc/CommandLine.h"
#ifdef TEXC_HAVE_ONNX
#include "tools/onnx/ImportOnnx.h"
#endif

namespace texc {

/// FILE names an ONNX model (it ends in .onnx).
bool is_onnx_model(const std::string& file);

#ifdef TEXC_HAVE_ONNX
/// The command line's ONNX model imported (its op named --op when given): what `texc import` writes
/// and what the in-memory import reads. A model that cannot be imported is a CommandLineError
/// "MODEL.onnx: why" (exit 1).
ImportedModel import_model(const CommandLine& cl);
#endif

/// The program text of the command line's file: the .tex file, or the imported model's .tex
/// (named `MODEL.onnx` in diagnostics). An ONNX model that cannot be imported is a
/// CommandLineError saying why (exit 1); in a build without the importer an EnvironmentError.
ProgramSource model_program_source(const CommandLine& cl);

/// The weights the command line gives its ops: --weights W read (WeightsFileError when it cannot
/// be), else the imported model's initializers, else none. `name` is set to where they come from.
const std::vector<NamedTensor>& model_weights(const CommandLine& cl, std::string* name);

}  // namespace texc
