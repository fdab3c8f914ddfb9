// CommandLine: the parsed arguments of `texc` (docs/cli.md), and the parser.
//
//   texc FILE.tex [--target T] [-o OUT] [--emit KINDS] [--op NAME] [-D NAME=VALUE]... [-I DIR]...
//                 [--records R.jsonl] [--knob NAME=VALUE]... [--no-fuse] [--remarks]
//   texc run  FILE.tex [--target T] [--op NAME] [-D ...] [--records R.jsonl] [--knob ...] [--repeat N]
//                 [--json] [--inputs DIR] [--save-io DIR] [--threads N]
//   texc tune FILE.tex [--target T] --trials N --records R.jsonl [--op NAME] [--seed S] [--json]
//   texc --version | --help
// plus --print-after-each, --print-changed, --time-passes, --seed, --mcpu, --mattr, --arch, and the
// extensions --time-compile, --extern-lib LIB, --extern-src FILE.c (docs/cli.md).
// Values are given as `--flag VALUE` or `--flag=VALUE`; `-D NAME=VALUE` and `-I DIR` also attached
// (`-DNAME=VALUE`, `-IDIR`). --target defaults to the host (x86 on x86-64, arm on aarch64).
// A mistake throws CommandLineError with a message for the user.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tools/driver/CompileOptions.h"

namespace texc {

/// A mistake on the command line; the library's OptionError is one too (the same message, exit 1).
using CommandLineError = OptionError;

enum class Command { Compile, Run, Tune, Import, Worker, Farm, Version, Help };

/// The compile options (CompileOptions.h: the target, --op, -D, -I, --records, --knob, --mcpu ...)
/// and the command line's own.
struct CommandLine : CompileOptions {
  Command command = Command::Compile;
  std::string file;
  std::string output_stem;                  // -o; "" = the input file's stem in the current directory,
                                            // "-" = stdout (one text output)
  std::vector<std::string> emit;            // --emit, split at commas; empty = the target's default
  int repeat = 0;                           // --repeat; 0 = the target's default
  std::string check;                        // --check full|sampled|none (run; "" = sampled)
  bool json = false;
  std::string inputs_dir;                   // --inputs
  std::string save_io_dir;                  // --save-io
  std::map<std::string, std::pair<double, double>> input_ranges;  // --input-range [NAME=]LO,HI ("": every input)
  int threads = 0;                          // --threads; 0 = every core
  int trials = 0;                           // --trials (tune)
  uint64_t seed = 0;                        // --seed
  std::string trace;                        // --trace FILE.json (run, vdla): the simulator's timeline
  bool time_compile = false;                // --time-compile: per-phase compile times (to stderr)
  std::string tuner;                        // --tuner xgb|ga|random|grid (tune; "" = xgb)
  std::vector<std::string> transfer;        // --transfer R.jsonl (tune; repeatable)
  int early_stopping = 0;                   // --early-stopping N (tune; 0 = none)
  bool allow_tf32 = false;                  // --allow-tf32 (tune): explore TF32 tensor-core configurations
  int remeasure = 0;                        // --remeasure N (tune; 0 = none)
  std::string curve;                        // --curve F.svg (tune)
  std::vector<std::string> curve_with;      // --curve-with R.jsonl (tune; more lines on the curve)
  double timeout_s = 0;                     // --timeout S (tune; 0 = 10 s per candidate)
  std::string objective;                    // --objective rank|reg (tune; "" = reg)
  std::string weights_dir;                  // --weights-dir (import: also the weights as DIR/OP.NAME.npy)
  std::string weights_file;                 // --weights W (run, compile: the weights container to read;
                                            // import: the one to write, "" = OUT.weights beside OUT.tex)
  std::string broker;                       // --broker redis://HOST:PORT (tune: measured by the farm)
  std::string device_kind;                  // --device NAME (tune --broker; "" = the target's name)
  std::string password_file;                // --password-file F (tune --broker)
  std::string compile_on;                   // --compile-on tuner|worker (tune --broker; "" = worker)
  bool insecure_broker = false;             // --insecure-broker (tune --broker): plain TCP off loopback
};

/// Parses argv[1..argc). Throws CommandLineError.
CommandLine parse_command_line(int argc, const char* const* argv);

/// The --help text.
std::string usage_text();

/// The output kinds --emit accepts.
const std::vector<std::string>& emit_kinds();

}  // namespace texc
