// Fixed knobs (CompileOptions::knobs; `--knob NAME=VALUE`, cli.md): a schedule knob's value given
// by the caller, without the tuner.
//
// A knob is looked up in the schedule blocks that apply to the target, in every op of the file
// (imported ops' knobs included); it applies to every op that declares it. A name no op declares is
// an error that lists the ops' knobs (with a "did you mean"); a value outside the knob's list is an
// error located at the knob's declaration that lists the allowed values; bool knobs take true or
// false. Given twice, the last value wins.
#pragma once
#include <vector>

#include "ir/Op.h"
#include "ir/Schedule.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// Checks every fixed knob (opts.knobs) against the knobs of `ops` for opts.target. Throws UserError.
void check_knob_options(const CompileOptions& opts, const std::vector<OpDef>& ops);

/// The fixed values of the knobs `op` declares for opts.target (checked by check_knob_options).
KnobConfig knob_options_for(const CompileOptions& opts, const OpDef& op);

}  // namespace texc
