// lower_op: an elaborated op and a target in, a lowered loop AST out. The passes are listed in
// order in Lower.cpp; that list is the table of contents of texc's lowering.
#pragma once
#include <iosfwd>
#include <string>

#include "ir/Function.h"
#include "ir/Op.h"
#include "ir/Schedule.h"

namespace texc {

struct LowerOptions {
  std::string target = "interp";  // selects the schedule blocks: cpu for x86/arm/interp, ...
  KnobConfig knobs;               // knob values; missing knobs take their first value
  bool no_fuse = false;           // --no-fuse: no automatic fusion by stage kind
  bool print_after_each = false;  // --print-after-each: the IR after every pass
  bool print_changed = false;     // --print-changed: the IR after each pass that changed it
  bool time_passes = false;       // --time-passes: a table of pass times at the end
#ifdef NDEBUG
  bool verify = false;            // run the IR verifier after every pass (names the pass that broke it);
#else                             // on by default in debug builds, --verify-each turns it on anywhere
  bool verify = true;
#endif
  std::ostream* log = nullptr;    // where printing goes (default std::cerr)
};

/// Lowers one op. Throws UserError for schedule mistakes (located at the primitive).
LoweredFunc lower_op(const OpDef& op, const LowerOptions& options);

/// The names of the passes, in order (for --help and the pass tests).
std::vector<std::string> lowering_pass_names();

}  // namespace texc
