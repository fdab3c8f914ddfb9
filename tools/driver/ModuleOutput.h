// ModuleOutput: what a target's emitter (TargetBehaviour::write_output, TargetRegistry.h) gets of
// a compiled Module to write one of the target's own outputs (obj, header, llvm, asm, ptx, vdla),
// and the two ways every output file is written (OutputFile.h: whole or not at all). Module::write
// writes the outputs every target shares (loops, graph, graph-dot) itself and hands the others to
// the target's entry.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/llvm/LLVMBackend.h"
#include "ir/Function.h"
#include "ir/SourceLoc.h"
#include "tools/driver/CompileOptions.h"
#include "tools/driver/CompileTimes.h"

namespace texc {

struct ModuleOutput {
  const std::vector<LoweredFunc>& functions;     // Module::functions(), in order
  const std::vector<SourceLoc>& function_locs;   // the op of each function (for a backend's errors)
  const CompileOptions& options;                 // the target, --arch, --vdla-config, ...
  const std::optional<CpuTargetOptions>& cpu;    // the LLVM CPU targets': the CPU compiled for
  CompileTimes& times;                           // an object's LLVM times (--time-compile)
  std::vector<std::string> files;                // Module::output_files(kind, path)
};

/// Writes `text` to the output `path` ("-": standard output).
void write_output_text(const std::string& path, const std::string& text);

/// Writes the output file `path` with `write` (a backend's function that writes a named file and
/// throws std::runtime_error when it cannot), through an OutputFile: whole or not at all. A
/// failure is an EnvironmentError naming `path` (not the temporary file); an OptionError
/// (TargetOptionError included) passes through.
void write_output_through(const std::string& path, const std::function<void(const std::string&)>& write);

}  // namespace texc
