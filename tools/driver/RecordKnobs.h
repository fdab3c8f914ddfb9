// knobs_from_records: the knob configuration an op compiles with when the options fix no knob:
// from the options' records file when given (the best valid record of the same op, shapes and
// target, else of the nearest shapes, else the defaults; a note on stderr says which), else from
// the records texc ships for the target (stdlib/records/TARGET.jsonl: only their machine kind and
// exact shapes, silently), else, or with no_records, empty (every knob takes its first value).
// Fixed knobs (CompileOptions::knobs) override these in lower_for_target.
#pragma once
#include "ir/Op.h"
#include "ir/Schedule.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// Throws OptionError for a records file that does not exist.
KnobConfig knobs_from_records(const CompileOptions& opts, const OpDef& op);

}  // namespace texc
