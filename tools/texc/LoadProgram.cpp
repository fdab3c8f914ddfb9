#include "tools/texc/LoadProgram.h"

#include <iostream>

#include "ir/SourceLoc.h"
#include "tools/texc/Commands.h"
#include "tools/texc/KnobOptions.h"
#include "tools/texc/OutputFile.h"

namespace texc {

Program load_program(const CommandLine& cl) {
  note_command_line_inputs(cl);
  FrontendOptions options = frontend_options(cl);
  options.skip_unbound_ops = true;
  Program program = compile_file(cl.file, options);
  check_command_line_files(cl);  // the inputs are known now: the front end noted every import
  if (program.ops.empty()) throw_error(DiagId::NoEntryOps, SourceLoc{}, cl.file);
  for (const SkippedOp& skipped : program.skipped) {
    const SourceLoc& loc = skipped.reason.loc;
    if (loc.valid())
      std::cerr << SourceManager::get().path(loc.file) << ":" << loc.line << ":" << loc.col << ": ";
    else
      std::cerr << "texc: ";
    std::cerr << "note: skipped op '" << skipped.name << "': " << skipped.reason.message << "\n";
  }
  check_knob_options(cl, program.ops);
  return program;
}

Program load_definitions(const CommandLine& cl) {
  FrontendOptions options = frontend_options(cl);
  options.skip_unbound_ops = true;
  options.target.clear();
  return compile_file(cl.file, options);
}

}  // namespace texc
