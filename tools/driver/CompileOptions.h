// CompileOptions: what the library (tools/driver/Compile.h) needs to compile a .tex file for a
// target: the front end's -D/-I/--op, the target and its CPU or GPU (mcpu, mattr, arch, vdla_config),
// the knobs (fixed ones, and which tuning records choose the others), the lowering's switches and
// the C functions that tensorized ops call. A plain struct: the command line (tools/texc/CommandLine.h)
// is one with the CLI's own fields added, and a program calling the library fills one in.
// OptionError: an option the library cannot use (a --records file that does not exist, an extern
// library that cannot be loaded, a --knob no op declares ...); the CLI prints it as a command-line
// mistake (exit 1).
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "frontend/DefineValue.h"

namespace texc {

class OptionError : public std::runtime_error {
 public:
  explicit OptionError(const std::string& message) : std::runtime_error(message) {}
};

struct CompileOptions {
  std::string target;                       // a name of ir/Target.h: x86, arm, interp, cuda, cuda-interp, vdla
  std::string op;                           // only this op ("" = every op the file defines)
  std::map<std::string, DefineValue> defines;  // -D NAME=VALUE: params, attributes (float ones too), dimensions
  std::vector<std::string> include_dirs;    // -I: where imports are looked for (after the file's folder)
  std::string stdlib_dir;                   // the standard library ("" = default_stdlib_dir(), Frontend.h)
  std::string records;                      // tuning records to choose knobs from ("" = the shipped ones)
  bool records_any_machine = false;         // use x86 records measured on another machine kind
  bool no_records = false;                  // not the shipped records: every knob's first value
  std::vector<std::pair<std::string, std::string>> knobs;  // knob NAME=VALUE, in order; win over records
  bool no_fuse = false;                     // no automatic fusion of elementwise stages
  bool no_graph_fusion = false;             // a graph op: every call and own stage a kernel of its own
  std::string layout;                       // --layout nchw|nchwc: "nchw" plans no layouts ("" = planned where conv2d
                                            // computes in blocks: docs/graph.md "Layout planning")
  bool remarks = false;                     // print the lowering's remarks (ir/Remark.h) on stderr
  bool verify_each = false;                 // verify the loop AST after every pass
  std::string mcpu, mattr, arch;            // the CPU (x86, arm) or the PTX architecture (cuda)
  std::string vdla_config;                  // a VDLA configuration file (.json) ("" = the spec's defaults)
  bool print_after_each = false;            // the loop AST after each pass, on stderr
  bool print_changed = false;               // ... only after the passes that changed it
  bool time_passes = false;                 // each pass's time, on stderr
  std::vector<std::string> extern_libs;     // libraries providing `lower extern` symbols
  std::vector<std::string> extern_srcs;     // C files compiled into such a library
};

/// The target of the machine texc runs on: "x86" on x86-64, "arm" on aarch64, "" elsewhere.
std::string host_target();

}  // namespace texc
