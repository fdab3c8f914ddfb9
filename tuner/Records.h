// Records: tuning results as JSON lines (one object per measurement, appended and flushed as each
// completes, so a killed run loses nothing finished), read back to resume a run, to warm-start a
// model (--transfer) and to pick knobs for compile and run (--records).
//
// A line: {"op", "target", "device", "shapes": {"A": [64, 64], ...}, "knobs": {"TI": 16, ...},
// "index", "status", "median_ms", "min_ms", "max_ms", "spread", "repeats", "gflops",
// "max_rel_err", "message", "tuner", "trial", "texc_version", "time" (UTC, ISO 8601),
// "features_version", "features": [...]}. status is "ok", or why the candidate has no time:
// "invalid" (the schedule rejects it: not measured), "wrong" (output differs from the reference),
// "crash", "timeout", "error" (it did not build or run). Lines that do not parse (a line cut
// short by a kill) are skipped and counted.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/Op.h"
#include "ir/Schedule.h"

namespace texc {

/// The arguments' shapes of an op, in argument order: {"A", {64, 64}}.
using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;
Shapes op_shapes(const OpDef& op);

struct Record {
  std::string op, target, device;
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

  bool ok() const { return status == "ok"; }
  bool same_workload(const Record& o) const { return op == o.op && target == o.target && shapes == o.shapes; }
};

std::string record_to_json(const Record& r);
std::optional<Record> parse_record(const std::string& line);

struct RecordFile {
  std::vector<Record> records;
  int malformed = 0;  // lines that did not parse
};
/// Reads every record of `path` (a missing file has none). Throws std::runtime_error when it
/// exists but cannot be read.
RecordFile read_records(const std::string& path);

/// Appends records to a file, one flushed line each; a file whose last line was cut short gets a
/// line break first, so the cut line stays one malformed line. Throws std::runtime_error when
/// the file cannot be opened or written.
class RecordWriter {
 public:
  explicit RecordWriter(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  void append(const Record& r);

 private:
  std::string path_;
  int fd_ = -1;
};

/// The current time as "2026-11-23T15:40:07Z".
std::string utc_now();

/// What --records picks for one op: the best "ok" record of the same op, target and shapes; else
/// the best of the nearest shapes of the same op and target (same argument ranks; distance = sum
/// of |log(dim ratio)|); else nothing (the defaults). Among records of equally near shapes, those
/// measured on `device` (the machine the op will run on, as a Runner names it; empty: any) come
/// first, then the fastest: knobs tuned on another CPU (its register count, caches) are taken only
/// when this one has none, and `how` says so. With `knob_names` (the knobs the op declares now), a
/// record naming a knob outside it was measured with another version of the op's schedule template
/// and is not considered. A configuration with several records (`texc tune --remeasure`) is ranked
/// by the median of their times, and the chosen record carries that median (its gflops scaled).
struct RecordChoice {
  std::optional<Record> record;
  int measurements = 0;  // records of the chosen configuration on its device
  std::string how;  // "the best record of the same shapes", "... nearest shapes A[64, 64] ...", "no ...: default knobs"
};
RecordChoice choose_record(const std::vector<Record>& records, const std::string& op, const std::string& target,
                           const Shapes& shapes, const std::optional<std::set<std::string>>& knob_names = std::nullopt,
                           const std::string& device = "");

/// Whether two records' devices name the same machine: equal, or equal but for a " (cpu)" suffix
/// that one of them lacks (records written before the LLVM CPU name was added to the device).
bool same_device(const std::string& a, const std::string& b);

/// "A[64, 32] B[32, 16] C[64, 16]"
std::string format_shapes(const Shapes& shapes);

/// The median of v (the mean of the middle two when even; 0 when empty).
double median_of(std::vector<double> v);

}  // namespace texc
