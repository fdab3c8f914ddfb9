// `texc FILE.tex --target T [-o OUT] [--emit KINDS] ...`: compiles every op (or --op NAME) of the
// file and writes the requested outputs. `loops` (OUT.loops.txt, the scheduled and lowered loop
// AST of every op) is written for any target; it is the only output of `interp`, which generates
// no code. The code generators (obj, header, llvm, asm, ptx, vdla) are not in this build yet:
// asking for them is an EnvironmentError (exit 2).
#include <filesystem>
#include <fstream>

#include "backends/interp/Npy.h"
#include "ir/IRPrinter.h"
#include "tools/texc/Commands.h"
#include "tools/texc/EnvironmentError.h"
#include "tools/texc/LowerForTarget.h"

namespace texc {

FrontendOptions frontend_options(const CommandLine& cl) {
  FrontendOptions o;
  o.include_dirs = cl.include_dirs;
  o.defines = cl.defines;
  o.only_op = cl.op;
  return o;
}

KnobConfig knobs_from_records(const CommandLine& cl, const OpDef& op) {
  if (cl.records.empty()) return {};
  throw EnvironmentError("--records " + cl.records + ": tuning records need the tuner, which this build of texc " +
                         "does not have yet (op '" + op.name + "')");
}

int compile_command(const CommandLine& cl) {
  std::vector<std::string> emit = cl.emit;
  if (emit.empty()) emit = cl.target == "interp" ? std::vector<std::string>{"loops"} : std::vector<std::string>{"obj", "header"};
  for (const std::string& kind : emit) {
    if (kind == "loops") continue;
    if (cl.target == "interp")
      throw CommandLineError("target 'interp' generates no code; the only output it has is --emit loops, not '" + kind + "'");
    throw EnvironmentError("target '" + cl.target + "' is not available yet: this build of texc cannot emit '" + kind + "'");
  }

  Program program = compile_file(cl.file, frontend_options(cl));
  std::string stem = cl.output_stem.empty() ? std::filesystem::path(cl.file).stem().string() : cl.output_stem;
  std::string loops;
  for (const OpDef& op : program.ops) loops += to_string(lower_for_target(op, cl, knobs_from_records(cl, op))) + "\n";
  std::string path = stem + ".loops.txt";
  std::ofstream out(path);
  out << loops;
  if (!out) throw EnvironmentError("cannot write '" + path + "'");
  return 0;
}

}  // namespace texc
