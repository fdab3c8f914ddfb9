#include "tools/texc/LowerForTarget.h"

#include <iostream>

#include "lower/Lower.h"
#include "tools/texc/KnobOptions.h"

namespace texc {

LoweredFunc lower_for_target(const OpDef& op, const CommandLine& cl, const KnobConfig& knobs, std::vector<Remark>* remarks) {
  LowerOptions options;
  options.target = cl.target;
  options.knobs = knobs;
  options.arch = cl.arch;
  for (const auto& [name, value] : knob_options_for(cl, op)) options.knobs[name] = value;  // --knob wins
  options.no_fuse = cl.no_fuse;
  options.print_after_each = cl.print_after_each;
  options.print_changed = cl.print_changed;
  options.time_passes = cl.time_passes;
  if (cl.verify_each) options.verify = true;
  options.log = &std::cerr;
  std::vector<Remark> found;
  if (cl.remarks) options.remarks = &found;
  LoweredFunc func = lower_op(op, options);
  for (const Remark& r : found) print_remark(std::cerr, r);
  if (remarks) *remarks = std::move(found);
  return func;
}

}  // namespace texc
