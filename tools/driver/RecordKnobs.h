// knobs_from_records: the knob configuration an op compiles with when the options fix no knob:
// from the options' records file when given (the best valid record of the same op, shapes and
// target, else of the nearest shapes, else the defaults; a note on stderr says which), else from
// the records texc ships for the target (stdlib/records/TARGET.jsonl: only their machine kind and
// exact shapes, silently), else, or with no_records, empty (every knob takes its first value).
// Fixed knobs (CompileOptions::knobs) override these in lower_for_target. The kernels of a graph
// take the records of their tuning tasks (kernel_knobs_from_records).
#pragma once
#include "ir/Op.h"
#include "ir/Schedule.h"
#include "lower/graph/GraphOps.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// Throws OptionError for a records file that does not exist.
KnobConfig knobs_from_records(const CompileOptions& opts, const OpDef& op);

/// The knobs kernel `kernel` of a graph (lower/graph/GraphOps.h) compiles with: with --records, the
/// best record of the kernel's tuning task (tuner/GraphTask.h) in that file, from whichever kernel
/// of whichever network it was tuned in (a note names the task and that kernel); else, or when the
/// task has none (a note says so), `op_knobs`: the op's, as every kernel had before tasks.
KnobConfig kernel_knobs_from_records(const CompileOptions& opts, const GraphKernel& kernel, const KnobConfig& op_knobs);

}  // namespace texc
