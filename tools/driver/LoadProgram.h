// load_program: the front end as the library and every command call it (cli.md). Compiles the
// source with the options' -I, -D and op; without an op named, an op whose dimensions nothing binds
// (a helper that other ops call) is skipped with a note on stderr as long as another op can be
// compiled. A source with no op is an error (a UserError). Checks every fixed knob against the ops
// (KnobOptions.h). The ops are elaborated for the options' target: an op's `compute TARGET`
// implementation replaces its definition there; load_definitions gives every op as defined, which
// is what the reference interpreter evaluates.
#pragma once
#include <string>

#include "frontend/Frontend.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// Where a program comes from: a .tex file, or text (named `path` in diagnostics; its imports are
/// found in the include directories and the standard library).
struct ProgramSource {
  std::string path;
  bool is_text = false;
  std::string text;

  static ProgramSource file(std::string path) { return {std::move(path), false, {}}; }
  static ProgramSource source_text(std::string name, std::string text) {
    return {std::move(name), true, std::move(text)};
  }
};

/// The front end's options from `opts` (-I, -D, op, target).
FrontendOptions frontend_options(const CompileOptions& opts);

/// The front end alone: the ops of `source` (skip notes on stderr; no op at all is an error).
/// Throws UserError.
Program read_program(const ProgramSource& source, const CompileOptions& opts);

/// read_program, then every fixed knob (opts.knobs) checked against the ops. Throws UserError.
Program load_program(const ProgramSource& source, const CompileOptions& opts);

/// The same ops as load_program, each elaborated as its definition (no `compute TARGET` block): the
/// reference's view. No notes are printed (load_program printed them).
Program load_definitions(const ProgramSource& source, const CompileOptions& opts);

}  // namespace texc
