// The commands of the texc driver, each in its own file: compile (CompileCommand.cpp), run
// (RunCommand.cpp) and tune (TuneCommand.cpp). Each returns the process exit code; user errors
// (UserError, NpyError), environment problems (EnvironmentError) and command-line mistakes
// (CommandLineError) propagate to main(), which prints them.
#pragma once
#include "frontend/Frontend.h"
#include "tools/texc/CommandLine.h"
#include "tuner/Tuner.h"

namespace texc {

int compile_command(const CommandLine& cl);
int run_command(const CommandLine& cl);
int tune_command(const CommandLine& cl);
/// `texc import` (ImportCommand.cpp; in a build without ONNX, Main.cpp says so, exit 2).
int import_command(const CommandLine& cl);
/// `texc worker ...` (argv[1] is "worker"): the farm's measuring process (tools/farm/FarmWorker.h).
int worker_command(int argc, const char* const* argv);
/// `texc farm status ...` (argv[1] is "farm"): the farm's state from its broker (FarmCommand.cpp).
int farm_command(int argc, const char* const* argv);

/// The tuning options of `cl` that every op shares (texc tune, and texc worker for a job).
TuneOptions tune_options_of(const CommandLine& cl);
/// The per-op part of `options`: fixed knobs, CPU features, what the check compares with and the
/// GFLOP/s count. `op` is what is tuned: `whole`, or its main half when `split` (SplitPrepare.h).
void set_op_options(const CommandLine& cl, const OpDef& whole, const OpDef& op, bool split, const Program& definitions,
                    TuneOptions& options);
/// The per-op part of `options` for a kernel of an op's graph (a network's task, tuned through its
/// first kernel): its fixed knobs and CPU features; checked against its own stages, its GFLOP/s
/// counting its own arithmetic.
void set_kernel_options(const CommandLine& cl, const OpDef& kernel, TuneOptions& options);

/// The ops of the command line's file (tools/driver/LoadProgram.h), with the files the command line
/// names noted as inputs before and checked after the front end (CommandLineFiles.h).
Program load_program(const CommandLine& cl);
/// The ops as defined, the reference's view (tools/driver/LoadProgram.h).
Program load_definitions(const CommandLine& cl);

}  // namespace texc
