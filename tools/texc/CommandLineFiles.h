// The files the command line names (cli.md): remembered as inputs of the run before they are read
// (ir/InputFile.h), and checked against each other before any work, so that no output of the run
// (--records, --curve, --trace) replaces a file the run reads (tools/driver/OutputFile.h).
#pragma once
#include "tools/texc/CommandLine.h"

namespace texc {

/// Remembers the files the command line names as inputs of this run (ir/InputFile.h), before they
/// are read: the .tex, --vdla-config, --extern-src, --extern-lib, --transfer, --curve-with and
/// --records (its imports are added as the front end reads them).
void note_command_line_inputs(const CommandLine& cl);
/// Checks the files the command line names, before any work (OptionError, exit 1): --records
/// is no other input of the run (the .tex, an import, a --transfer file: texc tune appends to it);
/// --curve and --trace are no input, and --curve is not the --records file, even one tune has not
/// created yet. Call after note_command_line_inputs and the front end (compile's -o outputs are
/// checked by compile_command, once it knows them all).
void check_command_line_files(const CommandLine& cl);

}  // namespace texc
