// A remark is not an error: it says where texc did not do what a schedule asked, and why (a
// vectorized loop that runs as scalar code, a parallel loop whose tail runs apart, a cache larger
// than the CPU's cache), located at the schedule primitive. `texc --remarks` prints them as
// "file:line:col: remark: message" with the source line and a caret; `texc run --json` lists them.
#pragma once
#include <iosfwd>
#include <string>

#include "ir/SourceLoc.h"

namespace texc {

struct Remark {
  SourceLoc loc;
  std::string message;
  bool operator==(const Remark& o) const {
    return loc.file == o.loc.file && loc.line == o.loc.line && loc.col == o.loc.col && message == o.message;
  }
};

/// Prints the remark like a diagnostic (ir/Diagnostics.h), with severity "remark".
void print_remark(std::ostream& os, const Remark& r);

}  // namespace texc
