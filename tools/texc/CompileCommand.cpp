// `texc FILE.tex --target T [-o OUT] [--emit KINDS] ...`: compiles every op (or --op NAME) of the
// file and writes the requested outputs. `loops` (OUT.loops.txt, the scheduled and lowered loop
// AST of every op) is written for any target; it is the only output of `interp`, which generates
// no code. x86 and arm (backends/llvm) write, for all ops of the file together, OUT.o (one object),
// OUT.h (one C function per op), OUT.ll and OUT.s. cuda (backends/llvm/CudaBackend.h) writes OUT.o
// (host functions launching the kernels, PTX embedded), OUT.h, OUT.ptx and OUT.ll (the kernels'
// NVVM IR) for --arch (default sm_80); ops not lowered for a GPU are an EnvironmentError (exit 2).
// cuda-interp has no code generator: asking it for code is an EnvironmentError (exit 2). -o OUT
// is the stem of the output files (output_path: `-o mm.o` is taken as given, `-o -` is stdout). --time-compile prints the
// time of each phase (CompileTimes.h). The compiling and writing are the library's (tools/driver/Module.h).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "ir/Target.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/Module.h"
#include "tools/driver/OutputFile.h"
#include "tools/texc/CommandLine.h"
#include "tools/texc/Commands.h"
#include "tools/texc/ModelSource.h"

namespace texc {

namespace {

/// How every output names itself in messages (OutputFile.h).
constexpr const char* kOutput = "output";

/// The file name extension of each output kind (cli.md).
const std::map<std::string, std::string>& output_extensions() {
  static const std::map<std::string, std::string> extensions = {
      {"obj", ".o"}, {"header", ".h"}, {"llvm", ".ll"}, {"asm", ".s"}, {"loops", ".loops.txt"},
      {"ptx", ".ptx"}, {"vdla", ".vdla"}, {"graph", ".graph.txt"}, {"graph-dot", ".graph.dot"}};
  return extensions;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Where output `kind` goes: "-" (stdout), else STEM + the kind's extension. -o OUT is the stem,
/// except that a name ending in the extension of an emitted kind is taken as given (`-o mm.o`
/// writes mm.o, and mm.h beside it); -o - sends the one text output asked for to stdout.
std::string output_path(const CommandLine& cl, const std::vector<std::string>& emit, const std::string& kind) {
  if (cl.output_stem == "-") return "-";
  std::string stem = cl.output_stem.empty() ? std::filesystem::path(cl.file).stem().string() : cl.output_stem;
  for (const std::string& k : emit) {
    const std::string& extension = output_extensions().at(k);
    if (!cl.output_stem.empty() && ends_with(stem, extension)) {
      stem.resize(stem.size() - extension.size());
      break;
    }
  }
  return stem + output_extensions().at(kind);
}

/// -o - takes exactly one text output.
void check_stdout_output(const CommandLine& cl, const std::vector<std::string>& emit) {
  if (cl.output_stem != "-") return;
  std::string kinds;
  for (const std::string& k : emit) kinds += (kinds.empty() ? "" : ",") + k;
  if (emit.size() != 1 || emit[0] == "obj")
    throw CommandLineError("-o - writes one text output to stdout, but the outputs are '" + kinds +
                           "'; pick one with --emit header, llvm, asm, loops, graph or graph-dot");
}

/// The outputs a target can write: its entry in ir/Target.h (docs/cli.md, "--emit").
void check_emit_kinds(const CommandLine& cl, const std::vector<std::string>& emit) {
  const Target* target = find_target(cl.target);
  TEXC_CHECK(target) << "target '" << cl.target << "' passed the command line's check";
  for (const std::string& kind : emit)
    if (std::string refusal = output_refusal(*target, kind); !refusal.empty()) throw CommandLineError(refusal);
}

bool emits(const std::vector<std::string>& emit, const std::string& kind) {
  return std::find(emit.begin(), emit.end(), kind) != emit.end();
}

}  // namespace

int compile_command(const CommandLine& cl) {
  PhaseClock whole_command;
  std::vector<std::string> emit = cl.emit;
  if (emit.empty()) emit = find_target(cl.target)->default_outputs;
  check_emit_kinds(cl, emit);
  check_stdout_output(cl, emit);
  if (is_llvm_cpu_target(cl.target)) cpu_target_options(cl);  // a bad --mcpu fails before any work

  PhaseClock frontend;
  Program program = load_program(cl);
  PhaseTime frontend_time = frontend.elapsed();
  std::string weights_name;
  const std::vector<NamedTensor>& weights = model_weights(cl, &weights_name);
  if (!cl.weights_file.empty())  // the container must fit the ops compiled (docs/onnx.md)
    for (const OpDef& op : program.ops) check_const_inputs(weights, weights_name, op);
  Module module = compile_program(program, model_program_source(cl), cl);
  if (cl.emit.empty()) emit = module.default_outputs();  // vdla: a graph's host part too
  auto path = [&](const std::string& kind) { return output_path(cl, emit, kind); };
  // An ONNX model compiled directly: its initializers go beside the object, as OUT.weights.
  std::string weights_out;
  if (is_onnx_model(cl.file) && cl.weights_file.empty() && !weights.empty() && cl.output_stem != "-") {
    std::string stem = path(emit[0]);
    stem.resize(stem.size() - output_extensions().at(emit[0]).size());
    weights_out = stem + ".weights";
    check_output_path(weights_out, kOutput);
  }

  // Every output is checked before the first is written: none may be a file the run read, nor a
  // directory.
  for (const std::string& kind : emit)
    for (const std::string& file : module.output_files(kind, path(kind)))
      if (file != "-") check_output_path(file, kOutput);
  for (const char* kind : {"loops", "vdla", "ptx", "obj", "asm", "llvm", "header", "graph", "graph-dot"})
    if (emits(emit, kind)) module.write(kind, path(kind));
  if (!weights_out.empty()) write_weights_file(weights_out, weights);

  CompileTimes times = module.times();
  times.frontend = frontend_time;
  times.total = whole_command.elapsed();
  if (cl.time_compile) print_compile_times(std::cerr, times);
  return 0;
}

}  // namespace texc
