// The farm's jobs and texc's command line (docs/tuning.md, "A measurement farm"): what a tuner
// puts in a job from its command line, and how a worker reads the job back as one. A job carries
// the main .tex file's text (imports are looked up on the worker: the standard library, its -I
// directories) and the compile arguments that change the candidate: --target, --mcpu, --mattr,
// --arch, -D NAME=VALUE, --knob NAME=VALUE, --no-fuse. A worker accepts no other argument, so a
// job cannot make it read or load any other file (--extern-lib, --records, -I ...).
#pragma once
#include <string>

#include "tools/farm/FarmJob.h"
#include "tools/texc/CommandLine.h"

namespace texc {

/// The job of `cl` (`texc tune --broker`) less its op, knobs, seed, repeat and timeout.
/// Throws CommandLineError when the file cannot be read.
FarmJob farm_job_template(const CommandLine& cl);

/// The command line of `job` as `texc run` with its source in `path`. Throws CommandLineError for
/// an argument outside the list above.
CommandLine command_line_of_job(const FarmJob& job, const std::string& path);

}  // namespace texc
