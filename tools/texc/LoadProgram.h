// load_program: the front end as every command calls it (cli.md). Compiles the file with the
// command line's -I, -D and --op; without --op, an op whose dimensions nothing binds (a helper that
// other ops call) is skipped with a note on stderr as long as another op can be compiled. A file
// with no op is an error (exit 1). Notes the run's input files and, once the front end has read the
// imports, checks the files the command line names (OutputFile.h: check_command_line_files).
// Checks every --knob against the ops (KnobOptions.h). The ops are
// elaborated for --target: an op's `compute TARGET` implementation replaces its definition there;
// load_definitions gives every op as defined, which is what the reference interpreter evaluates.
#pragma once
#include "frontend/Frontend.h"
#include "tools/texc/CommandLine.h"

namespace texc {

/// The ops of cl.file to compile or run. Throws UserError.
Program load_program(const CommandLine& cl);

/// The same ops as load_program, each elaborated as its definition (no `compute TARGET` block): the
/// reference's view. No notes are printed (load_program printed them).
Program load_definitions(const CommandLine& cl);

}  // namespace texc
