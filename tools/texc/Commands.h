// The commands of the texc driver, each in its own file: compile (CompileCommand.cpp), run
// (RunCommand.cpp) and tune (TuneCommand.cpp). Each returns the process exit code; user errors
// (UserError, NpyError), environment problems (EnvironmentError) and command-line mistakes
// (CommandLineError) propagate to main(), which prints them.
#pragma once
#include "frontend/Frontend.h"
#include "tools/texc/CommandLine.h"

namespace texc {

int compile_command(const CommandLine& cl);
int run_command(const CommandLine& cl);
int tune_command(const CommandLine& cl);

/// The front end's options from the command line (-I, -D, --op).
FrontendOptions frontend_options(const CommandLine& cl);
/// The knob configuration to compile with: from --records when given (the best valid record of
/// the same op, shapes and target, else of the nearest shapes, else the defaults; a note on stderr
/// says which), else empty (every knob takes its first value).
KnobConfig knobs_from_records(const CommandLine& cl, const OpDef& op);

}  // namespace texc
