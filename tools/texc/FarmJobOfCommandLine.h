// The farm's jobs and texc's command line (docs/tuning.md, "A measurement farm"): what a tuner
// puts in a job from its command line, and how a worker reads the job back as one. A job carries
// the main .tex file and every file it imports, found with the tuner's -I folders and standard
// library (tools/farm/FarmSources.h), and the compile arguments that change the candidate:
// --target, --mcpu, --mattr, --arch, -D NAME=VALUE, --knob NAME=VALUE, --no-fuse, --no-graph-fusion
// (which makes a network's kernels, and so the kernel a job names). A worker
// accepts no other argument, so a job cannot make it read or load any other file (--extern-lib,
// --records ...): its -I folders and standard library are the job's own, inside the worker's folder.
#pragma once
#include <string>

#include "tools/farm/FarmJob.h"
#include "tools/texc/CommandLine.h"

namespace texc {

/// The job of `cl` (`texc tune --broker`) less its op, knobs, seed, repeat and timeout.
/// Throws UserError for a source the front end rejects, CommandLineError for one that cannot be
/// shipped (an import by an absolute path).
FarmJob farm_job_template(const CommandLine& cl);

/// The command line of `job` as `texc run` with its sources written under the folder `root`
/// (write_job_sources) and its standard library, when it ships none, the empty folder
/// `empty_stdlib`. Throws CommandLineError for an argument outside the list above.
CommandLine command_line_of_job(const FarmJob& job, const std::string& root, const std::string& empty_stdlib);

}  // namespace texc
