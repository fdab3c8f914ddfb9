// FarmJob: one measurement job of the farm (docs/tuning.md, "A measurement farm"), as the tuner
// publishes it and a worker reads it: everything the worker needs to rebuild the candidate (the
// .tex sources, the main file and all it imports: FarmSources.h; the op, and the kernel of its
// graph for a network's task; the compile arguments:
// --target, --mcpu, -D, --knob ...) and to measure
// it as local tuning does (seed, repeat, timeout), plus the device kind it is for; with `--compile-on
// tuner`, the candidate compiled too (FarmArtefact.h). Its id is a
// content hash of all of it, so the same candidate measured on the same kind is one job, and a
// result is stored once per id. Results travel back as JSON too (the Measurement of Measure.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/Schedule.h"
#include "tools/farm/FarmArtefact.h"
#include "tools/farm/FarmSources.h"
#include "tuner/Measure.h"

namespace texc {

struct FarmJob {
  std::string device;                // the device kind (the worker's --device)
  JobSources sources;                // the main .tex file and every file it imports
  std::vector<std::string> args;     // compile arguments, as on texc's command line
  std::string op;                    // the op as the file names it
  /// An op compiled as a graph of kernels (docs/tuning.md "Tuning a network"): the kernel of the
  /// op's graph whose candidate this is ("small_cnn_k0"), and its tuning task (tuner/GraphTask.h
  /// graph_task_key), which the worker's graph must give that kernel too; both "" for an op tuned
  /// whole. A job with a kernel is version 3 (a worker that reads version 2 only rejects it rather
  /// than measuring the whole op); one without is version 2, as before.
  std::string kernel, task;
  KnobConfig knobs;                  // the candidate
  uint64_t seed = 0;
  int repeat = 5;
  double timeout_s = 10;
  /// The candidate compiled by the tuner (`--compile-on tuner`): the worker runs it rather than
  /// lowering and compiling the candidate itself.
  std::optional<FarmArtefact> artefact;

  std::string to_json() const;
  /// The content hash of to_json(): 32 hex digits.
  std::string id() const;
};

/// The job in `text`, or why it is not a well-formed one.
struct ParsedJob {
  std::optional<FarmJob> job;
  std::string error;
};
ParsedJob parse_farm_job(const std::string& text);

std::string measurement_to_json(const Measurement& m);
/// nullopt when `text` is not a measurement.
std::optional<Measurement> measurement_from_json(const std::string& text);

/// The broker's keys, under the prefix texc: (docs/tuning.md lists them).
namespace farm_keys {
inline std::string jobs(const std::string& device) { return "texc:jobs:" + device; }
inline const char* group() { return "workers"; }
inline std::string result(const std::string& id) { return "texc:result:" + id; }
inline std::string device(const std::string& device) { return "texc:device:" + device; }
inline std::string worker(const std::string& device, const std::string& consumer) {
  return "texc:worker:" + device + ":" + consumer;
}
inline std::string rejected(const std::string& device) { return "texc:rejected:" + device; }
inline std::string done(const std::string& device) { return "texc:done:" + device; }
/// Results whose status is not "ok" (a build error, a crash, a timeout, a wrong result).
inline std::string failed(const std::string& device) { return "texc:failed:" + device; }
/// Jobs taken over from a worker that stopped heartbeating (XAUTOCLAIM).
inline std::string reclaimed(const std::string& device) { return "texc:reclaimed:" + device; }
/// Sorted set: each worker alive, scored by the broker's time (ms) its heartbeat expires (a count
/// of the workers alive without a SCAN, for texc tune's progress line).
inline std::string alive(const std::string& device) { return "texc:alive:" + device; }
/// Sorted set: each result of the last 10 minutes, scored by the broker's time (ms) it was stored.
inline std::string finished(const std::string& device) { return "texc:finished:" + device; }
}  // namespace farm_keys

}  // namespace texc
