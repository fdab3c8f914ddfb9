// Records: tuning results as JSON lines (one object per measurement, appended and flushed as each
// completes, so a killed run loses nothing finished), read back to resume a run, to warm-start a
// model (--transfer) and to pick knobs for compile and run (--records).
//
// A line: {"op", "target", "device", "machine": {"name", "triple", "cpu", "features": [...]}, "shapes": {"A": [64, 64], ...}, "knobs": {"TI": 16, ...},
// "index", "status", "median_ms", "min_ms", "max_ms", "spread", "repeats", "gflops",
// "max_rel_err", "message", "tuner", "trial", "texc_version", "time" (UTC, ISO 8601),
// "features_version", "features": [...]}, and "task" for the kernel of a graph (tuner/GraphTask.h:
// its anchor layer's op, shapes and dtypes; absent for an op tuned as one kernel, so records of
// such ops are as they were). status is "ok", or why the candidate has no time:
// "invalid" (the schedule rejects it: not measured), "wrong" (output differs from the reference),
// "crash", "timeout", "error" (it did not build or run). Lines that do not parse (a line cut
// short by a kill) are skipped and counted; records that parse but cannot be measurements
// (record_defect: a time not above 0, a throughput beyond any machine) are skipped with a warning
// by whoever uses them (`texc tune`, --records).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/Op.h"
#include "ir/Schedule.h"
#include "tuner/Machine.h"

namespace texc {

/// The arguments' shapes of an op, in argument order: {"A", {64, 64}}.
using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;
Shapes op_shapes(const OpDef& op);

struct Record {
  std::string op, target, device;
  /// The tuning task of a graph kernel (GraphTask.h), "" for an op tuned whole. A record of a task
  /// is of that task's workload whatever the kernel (`op`) and network it was measured in.
  std::string task;
  Machine machine;  // what it was measured on (Machine.h); unknown in records of texc before 2026-11-27
  Shapes shapes;
  KnobConfig knobs;
  std::vector<std::string> knob_order;  // as written (declaration order)
  uint64_t index = 0;
  std::string status = "ok";
  double median_ms = 0, min_ms = 0, max_ms = 0, spread = 0;
  int repeats = 0;
  double gflops = 0, max_rel_err = 0;
  std::string message;
  std::string tuner;
  int trial = 0;
  std::string texc_version, time;
  int features_version = 0;
  std::vector<float> features;
  int line = 0;  // its line in the file it was read from (1-based; 0: not read from a file)

  bool ok() const { return status == "ok"; }
  /// The same op, target and shapes; for a task's records, the same task and target.
  bool same_workload(const Record& o) const {
    if (!task.empty() || !o.task.empty()) return task == o.task && target == o.target;
    return op == o.op && target == o.target && shapes == o.shapes;
  }
};

std::string record_to_json(const Record& r);
std::optional<Record> parse_record(const std::string& line);

struct RecordFile {
  std::vector<Record> records;
  int malformed = 0;  // lines that did not parse
};
/// Reads every record of `path` (a missing file has none) through read_input_file (ir/InputFile.h:
/// a regular file of at most 1 GiB, else a UserError naming it as `what`, e.g. "--transfer").
RecordFile read_records(const std::string& path, const std::string& what = "");

/// Why a record that parsed cannot be a measurement, or nullopt: a status texc does not write; a
/// time (median_ms, min_ms, max_ms) or throughput that is negative or not finite; an "ok" record
/// whose median_ms is not above 0 or whose gflops exceeds
/// 100 times plausible_peak_gflops of its target. One function for `texc tune` and --records.
std::optional<std::string> record_defect(const Record& r);

/// A generous bound on the GFLOP/s any machine of `target` reaches: the target's peak_gflops
/// (ir/Target.h: GPUs 4 PFLOP/s; vdla 1 TFLOP/s, the default configuration's GEMM doing 51.2
/// GOP/s at the nominal 100 MHz), else, for CPUs, 256 operations per cycle at 5 GHz on every core
/// of this machine (the records of a larger machine stay within 100 times of it). record_defect
/// rejects 100 times more.
double plausible_peak_gflops(const std::string& target);

/// A records file shared by `texc tune` processes. append() adds a record as one flushed line (a
/// file whose last line was cut short by a kill gets a line break first, so the cut line stays one
/// malformed line). lock() takes an exclusive advisory lock (flock) on the file: tune_op holds it
/// while it reads what others appended, proposes, measures and appends one batch, so two tuners on
/// one file take turns batch by batch, each seeing the other's measurements before proposing, and
/// no configuration is measured twice. Throws std::runtime_error when the file cannot be opened,
/// locked or written, UserError when it is not a regular file.
class RecordWriter {
 public:
  explicit RecordWriter(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  /// Waits for the lock; `waiting` is called first when another process holds it.
  void lock(const std::function<void()>& waiting = {});
  void unlock();
  /// The records in whole lines appended since the last call (at the first call: every one),
  /// except those this writer appended itself after reading to the end.
  RecordFile read_new();
  void append(const Record& r);

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t read_offset_ = 0;  // read_new has returned the file's whole lines up to here
  uint64_t known_end_ = 0;    // the file's size when read_new or append last saw it
  int lines_read_ = 0;
};

/// The current time as "2026-11-23T15:40:07Z".
std::string utc_now();

/// What --records asks for: the op, its target and shapes, and how far records may come from.
struct RecordQuery {
  std::string op, target;
  Shapes shapes;
  /// A graph kernel's tuning task (GraphTask.h): only records of this task count, whatever their
  /// op and shapes (those of the kernel they were tuned in). "": the op's records, as above.
  std::string task;
  /// The knobs the op declares now: a record naming a knob outside them was measured with another
  /// version of the op's schedule template and is not considered. nullopt: any.
  std::optional<std::set<std::string>> knob_names;
  /// The machine the op will run on. Records of the same machine come first, then those of a
  /// machine with the same features; records of other or unknown machines are left out (and
  /// counted) unless any_machine. nullopt: every record counts as this machine's (arm under qemu,
  /// vdla's simulator).
  std::optional<Machine> here;
  bool any_machine = false;
  /// Also records of other ops with exactly the op's knob_names (the same stdlib template under
  /// another op name: the records texc ships are of the benchmark's ops).
  bool same_template = false;
  /// Only records of the same shapes (TVM's TopHub: the shipped records are for their workloads).
  bool exact_shapes = false;
};

/// What --records picks for one op: the best "ok" record of the same op (or template), target and
/// shapes; else the best of the nearest shapes (same argument ranks, in argument order; distance =
/// sum of |log(dim ratio)|); else nothing (the defaults). Among records of equally near shapes,
/// those of a nearer machine come first (Machine.h: same, then same features), then the fastest.
/// A record with a record_defect is skipped and counted. A configuration with several records
/// (`texc tune --remeasure`) is ranked by the median of their times, and the chosen record
/// carries that median (its gflops scaled).
struct RecordChoice {
  std::optional<Record> record;
  MachineMatch machine = MachineMatch::Same;  // how the chosen record's machine matches query.here
  int defective = 0;            // records of the op and target skipped for a record_defect
  std::string first_defect;     // "line 3: median_ms is -1, ..." (the first of them)
  int foreign = 0;              // records left out because another or an unknown machine measured them
  int measurements = 0;  // records of the chosen configuration on its device
  std::string how;  // "the best record of the same shapes, measured on this machine (znver5)", "no ...: default knobs"
};
RecordChoice choose_record(const std::vector<Record>& records, const RecordQuery& query);

/// Whether two records' devices name the same machine: equal, or equal but for a " (cpu)" suffix
/// that one of them lacks (records written before the LLVM CPU name was added to the device).
bool same_device(const std::string& a, const std::string& b);

/// "A[64, 32] B[32, 16] C[64, 16]"
std::string format_shapes(const Shapes& shapes);

}  // namespace texc
