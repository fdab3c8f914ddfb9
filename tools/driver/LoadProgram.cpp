#include "tools/driver/LoadProgram.h"

#include <iostream>

#include "ir/SourceLoc.h"
#include "tools/driver/KnobOptions.h"

namespace texc {

FrontendOptions frontend_options(const CompileOptions& opts) {
  FrontendOptions o;
  o.include_dirs = opts.include_dirs;
  o.stdlib_dir = opts.stdlib_dir;
  o.defines = opts.defines;
  o.only_op = opts.op;
  o.target = opts.target;
  o.plan_layouts = opts.layout != "nchw";
  return o;
}

namespace {

Program run_frontend(const ProgramSource& source, const FrontendOptions& options) {
  return source.is_text ? compile_source(source.path, source.text, options) : compile_file(source.path, options);
}

}  // namespace

Program read_program(const ProgramSource& source, const CompileOptions& opts) {
  FrontendOptions options = frontend_options(opts);
  options.skip_unbound_ops = true;
  Program program = run_frontend(source, options);
  if (program.ops.empty()) throw_error(DiagId::NoEntryOps, SourceLoc{}, source.path);
  for (const SkippedOp& skipped : program.skipped) {
    const SourceLoc& loc = skipped.reason.loc;
    if (loc.valid())
      std::cerr << SourceManager::get().path(loc.file) << ":" << loc.line << ":" << loc.col << ": ";
    else
      std::cerr << "texc: ";
    std::cerr << "note: skipped op '" << skipped.name << "': " << skipped.reason.message << "\n";
  }
  return program;
}

Program load_program(const ProgramSource& source, const CompileOptions& opts) {
  Program program = read_program(source, opts);
  check_knob_options(opts, program.ops);
  return program;
}

Program load_definitions(const ProgramSource& source, const CompileOptions& opts) {
  FrontendOptions options = frontend_options(opts);
  options.skip_unbound_ops = true;
  options.target.clear();
  return run_frontend(source, options);
}

}  // namespace texc
