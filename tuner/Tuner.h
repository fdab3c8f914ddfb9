// tune_op: the tuning loop of one op (`texc tune`). Reads the records file first: the op's
// records of the same workload (op, shapes, target) measured on this device (same_device) count
// as trials done and their configurations are never measured again (resume); those of another
// device and the --transfer records warm-start the model. The first batch measures the schedule's
// defaults (so the best record is never slower than them) and the configurations other devices
// found fastest for this workload (a re-tune's prior); visited ones are left out. Records with a record_defect, and those
// whose knob values are not in the op's lists, are skipped with a warning.
// The records file may be shared with other `texc tune` processes: the file is locked (flock,
// RecordWriter) while a batch is read, proposed, measured and appended, and after each batch the
// records the others appended meanwhile count as resumed trials, so no configuration is measured
// twice and a second tuner waits for its turn.
// Then, batch by batch until `trials` records of the workload exist, the space is exhausted or
// `early_stopping` trials pass without a better result: the explorer proposes, each candidate is
// lowered (invalid ones are recorded at once, unmeasured), measured in a child process (Measure.h)
// and appended to the records file as soon as it completes; a progress line per batch.
// With --remeasure N, the N best configurations are then measured a second time (records of tuner
// "remeasure", not trials; --records ranks a configuration by the median of its measurements).
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ir/Op.h"
#include "tuner/Candidate.h"
#include "tuner/CostModel.h"
#include "tuner/Measure.h"
#include "tuner/Records.h"

namespace texc {

struct TuneOptions {
  int trials = 0;
  std::string records;                 // the records file (read, then appended to)
  std::vector<std::string> transfer;   // --transfer files
  std::string tuner = "xgb";           // xgb, ga, random, grid
  CostObjective objective = CostObjective::Regression;  // docs/tuning.md: better than rank here
  uint64_t seed = 0;
  int early_stopping = 0;              // 0: none
  int batch = 8;
  MeasureOptions measure;
  /// --broker: each batch is measured by the farm's workers (not by `runner`, which then only names
  /// the device); nullptr: measured here, one candidate after another.
  BatchMeasurer* measurer = nullptr;
  LowerSettings lower;
  std::string texc_version;
  bool tty = false;                    // progress rewritten in place
  int remeasure = 0;                   // --remeasure N: measure the N best configurations twice
  /// A graph kernel's tuning task (GraphTask.h): its records carry it, and the records of the task
  /// (of any kernel, in any network) are this workload's. "": an op tuned whole, records by op.
  std::string task;
  std::string progress_label;          // the progress lines' name ("": the op's)
};

/// The `tuner` of a record that measures a configuration again (--remeasure): not a trial.
inline constexpr const char* kRemeasureTuner = "remeasure";

struct TuneSummary {
  int resumed = 0;        // records of this workload found in the file
  int measured = 0;       // new records this run (invalid ones included)
  int failures = 0;       // of the new records, those without a time
  int total = 0;          // records of this workload now
  bool exhausted = false; // every point of the space has a record
  bool stopped_early = false;
  int remeasured = 0;         // --remeasure: measurements made again this run
  int remeasured_before = 0;  // ... and in earlier runs (records of tuner "remeasure")
  std::optional<Record> best;  // after --remeasure: by its configuration's median
};

TuneSummary tune_op(const OpDef& op, Runner& runner, const TuneOptions& options, std::ostream& progress);

/// Throughput of a measured time: GFLOP/s from ir::count_flops.
double gflops_of(const OpDef& op, double median_ms);

}  // namespace texc
