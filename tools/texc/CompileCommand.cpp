// `texc FILE.tex --target T [-o OUT] [--emit KINDS] ...`: compiles every op (or --op NAME) of the
// file and writes the requested outputs. `loops` (OUT.loops.txt, the scheduled and lowered loop
// AST of every op) is written for any target; it is the only output of `interp`, which generates
// no code. x86 and arm (backends/llvm) write, for all ops of the file together, OUT.o (one object),
// OUT.h (one C function per op), OUT.ll and OUT.s. cuda (backends/llvm/CudaBackend.h) writes OUT.o
// (host functions launching the kernels, PTX embedded), OUT.h, OUT.ptx and OUT.ll (the kernels'
// NVVM IR) for --arch (default sm_80); ops not lowered for a GPU are an EnvironmentError (exit 2).
// cuda-interp has no code generator: asking it for code is an EnvironmentError (exit 2). -o OUT
// is the stem of the output files (output_path: `-o mm.o` is taken as given, `-o -` is stdout). --time-compile prints the
// time of each phase (CompileTimes.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "backends/interp/Npy.h"
#include "backends/llvm/CudaBackend.h"
#include "backends/llvm/LLVMBackend.h"
#include "ir/IRPrinter.h"
#include "backends/vdla/Codegen.h"
#include "backends/vdla/Listing.h"
#include "backends/vdla/ProgramFile.h"
#include "frontend/Frontend.h"
#include "tools/texc/CommandLine.h"
#include "tools/texc/Commands.h"
#include "tuner/CpuRunners.h"
#include "tuner/Records.h"
#include "tuner/Space.h"
#include "tools/driver/CompileTimes.h"
#include "ir/Target.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/LoadProgram.h"
#include "tools/driver/RecordKnobs.h"
#include "lower/SplitPrepare.h"
#include "tools/driver/LowerForTarget.h"
#include "tools/driver/OutputFile.h"
#include "tools/driver/VdlaExecutor.h"

namespace texc {

namespace {

/// How every output names itself in messages (OutputFile.h).
constexpr const char* kOutput = "output";

void write_text(const std::string& path, const std::string& text) { write_output_file(path, kOutput, text); }

/// Writes the output file `path` with `write` (a backend's function that writes a named file and
/// throws std::runtime_error when it cannot), through an OutputFile: whole or not at all. A
/// failure is an EnvironmentError naming `path` (not the temporary file).
void write_through(const std::string& path, const std::function<void(const std::string&)>& write) {
  OutputFile out(path, kOutput);
  try {
    write(out.write_path());
  } catch (const TargetOptionError&) {  // a CPU the code cannot be generated for (exit 1)
    throw;
  } catch (const std::runtime_error& e) {
    std::string message = e.what();
    for (size_t at; (at = message.find(out.write_path())) != std::string::npos;)
      message.replace(at, out.write_path().size(), path);
    throw EnvironmentError(message);
  }
  out.commit();
}

/// The file name extension of each output kind (cli.md).
const std::map<std::string, std::string>& output_extensions() {
  static const std::map<std::string, std::string> extensions = {
      {"obj", ".o"}, {"header", ".h"}, {"llvm", ".ll"}, {"asm", ".s"}, {"loops", ".loops.txt"},
      {"ptx", ".ptx"}, {"vdla", ".vdla"}};
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
                           "'; pick one with --emit header, llvm, asm or loops");
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

/// The cuda outputs: obj (the host functions, PTX embedded), header, ptx, llvm (the kernels' IR).
/// Ops the lowering left as host functions (no thread binding) cannot run on a GPU: exit 2.
void write_cuda_outputs(const CommandLine& cl, const std::vector<LoweredFunc>& funcs,
                        const std::vector<std::string>& emit, const std::function<std::string(const std::string&)>& path) {
  if (!emits(emit, "obj") && !emits(emit, "header") && !emits(emit, "ptx") && !emits(emit, "llvm")) return;
  for (const LoweredFunc& func : funcs)
    if (func.kind != FunctionKind::Device)
      throw EnvironmentError("target 'cuda' needs the GPU lowering, which this build of texc lacks: op '" + func.name +
                             "' was lowered to host loops with no thread binding");
  CudaTargetOptions target;
  if (!cl.arch.empty()) target.arch = cl.arch;
  if (emits(emit, "ptx")) write_text(path("ptx"), emit_ptx(funcs, target));
  if (emits(emit, "llvm")) write_text(path("llvm"), emit_cuda_llvm_ir(funcs, target));
  if (emits(emit, "header")) write_text(path("header"), emit_cuda_host_header(funcs));
  if (emits(emit, "obj")) {
    try {
      write_through(path("obj"), [&](const std::string& file) { write_cuda_host_object(funcs, target, file); });
    } catch (const CommandLineError&) {
      throw;
    } catch (const std::runtime_error& e) {  // the object file could not be written
      throw EnvironmentError(e.what());
    }
  }
}

}  // namespace

int compile_command(const CommandLine& cl) {
  PhaseClock whole_command;
  std::vector<std::string> emit = cl.emit;
  if (emit.empty()) emit = find_target(cl.target)->default_outputs;
  check_emit_kinds(cl, emit);
  check_stdout_output(cl, emit);
  std::optional<CpuTargetOptions> cpu;
  if (is_llvm_cpu_target(cl.target)) cpu = cpu_target_options(cl);  // a bad --mcpu fails before any work

  CompileTimes times;
  times.file = cl.file;
  times.target = cl.target;
  PhaseClock frontend;
  Program program = load_program(cl);
  times.frontend = frontend.elapsed();
  auto path = [&](const std::string& kind) { return output_path(cl, emit, kind); };
  std::vector<LoweredFunc> funcs;
  std::vector<SourceLoc> func_locs;  // each function's op
  for (const OpDef& op : program.ops) {
    PhaseClock lowering;
    for (LoweredFunc& f : lower_op_functions(op, cl, knobs_from_records(cl, op))) {  // <op>_prepare too
      funcs.push_back(std::move(f));
      func_locs.push_back(op.loc);
    }
    times.lowering.emplace_back(op.name, lowering.elapsed());
  }

  // Every output is checked before the first is written: none may be a file the run read.
  std::vector<std::string> vdla_stems;  // one op: OUT; several: OUT.OP each
  if (emits(emit, "vdla")) {
    std::string stem = path("vdla");
    stem = stem.substr(0, stem.size() - std::string(".vdla").size());
    for (const LoweredFunc& func : funcs) vdla_stems.push_back(funcs.size() == 1 ? stem : stem + "." + func.name);
  }
  for (const std::string& kind : emit)
    if (kind != "vdla" && path(kind) != "-") refuse_input_as_output(path(kind), kOutput);
  for (const std::string& stem : vdla_stems) {
    refuse_input_as_output(stem + ".vdla", kOutput);
    refuse_input_as_output(stem + ".vdla.txt", kOutput);
  }

  if (emits(emit, "loops")) {
    std::string loops;
    for (const LoweredFunc& func : funcs) loops += to_string(func) + "\n";
    write_text(path("loops"), loops);
  }
  if (emits(emit, "vdla")) {
    vdla::VdlaConfig config = vdla_config_of(cl);
    for (size_t i = 0; i < funcs.size(); ++i) {
      vdla::VdlaProgram prog = vdla::generate_program(funcs[i], config, func_locs[i]);
      write_through(vdla_stems[i] + ".vdla", [&](const std::string& file) {
        if (!vdla::write_vdla_file(file, prog)) throw std::runtime_error("cannot write '" + file + "'");
      });
      write_through(vdla_stems[i] + ".vdla.txt", [&](const std::string& file) {
        if (!vdla::write_vdla_listing(file, prog)) throw std::runtime_error("cannot write '" + file + "'");
      });
    }
  }
  if (cpu) {
    try {
      if (emits(emit, "obj"))
        write_through(path("obj"), [&](const std::string& file) { write_object(funcs, *cpu, file, &times.llvm.emplace()); });
      if (emits(emit, "asm") && path("asm") == "-") write_text("-", emit_assembly(funcs, *cpu));
      else if (emits(emit, "asm"))
        write_through(path("asm"), [&](const std::string& file) { write_assembly(funcs, *cpu, file); });
    } catch (const TargetOptionError&) {
      throw;
    } catch (const CommandLineError&) {
      throw;
    } catch (const EnvironmentError&) {
      throw;
    } catch (const std::runtime_error& e) {  // the backend could not write a file
      throw EnvironmentError(e.what());
    }
    if (emits(emit, "llvm")) write_text(path("llvm"), emit_llvm_ir(funcs, *cpu));
    if (emits(emit, "header")) write_text(path("header"), emit_c_header(funcs));
  }
  if (cl.target == "cuda") write_cuda_outputs(cl, funcs, emit, path);
  times.total = whole_command.elapsed();
  if (cl.time_compile) print_compile_times(std::cerr, times);
  return 0;
}

}  // namespace texc
