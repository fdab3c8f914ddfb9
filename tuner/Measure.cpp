#include "tuner/Measure.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "backends/interp/RunOp.h"
#include "backends/execute/TimeCalls.h"
#include "lower/gpu/MmaIntrinsics.h"
#include "backends/execute/ChildRun.h"

namespace texc {

namespace {

constexpr int kMaxTimes = 256;

/// What the measuring child sends its parent.
struct ChildReport {
  int verdict;  // 0 ok, 1 wrong, 2 error
  int count;
  double max_rel_err;
  double times[kMaxTimes];
  char message[4096];
};

}  // namespace

std::string tune_test_fault(const KnobConfig& config) {
  const char* env = std::getenv("TEXC_TUNE_TEST_FAULT");
  if (!env) return "";
  std::string spec = env;
  size_t start = 0;
  while (start < spec.size()) {
    size_t end = std::min(spec.find(';', start), spec.size());
    std::string entry = spec.substr(start, end - start);
    start = end + 1;
    size_t at = entry.find('@');
    if (at == std::string::npos) continue;
    std::string kind = entry.substr(0, at), conds = entry.substr(at + 1);
    bool match = true;
    size_t p = 0;
    while (p <= conds.size() && match) {
      size_t comma = std::min(conds.find(',', p), conds.size());
      std::string cond = conds.substr(p, comma - p);
      p = comma + 1;
      size_t eq = cond.find('=');
      if (eq == std::string::npos) { match = false; break; }
      auto it = config.find(cond.substr(0, eq));
      match = it != config.end() && std::to_string(it->second) == cond.substr(eq + 1);
    }
    if (match) return kind;
  }
  return "";
}

namespace {

/// The measuring child: runs and checks the candidate, and sends its ChildReport.
void child_main(const OpDef& op, const Candidate& candidate, Runner& runner, const MeasureOptions& options,
                ChildChannel& parent) {
  std::string fault = tune_test_fault(candidate.config);
  if (fault == "crash") std::raise(SIGSEGV);
  if (fault == "hang")
    for (volatile bool forever = true; forever;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<double> times;
  bool executed = false;
  RunOptions run;
  run.target = "tune";
  run.seed = options.seed;
  run.check.seed = options.seed;
  run.check.input_unit_roundoff = input_unit_roundoff(candidate.func.body);  // TF32 (--allow-tf32): Check.h
  run.reference = options.reference;
  run.on_reference = [&parent](bool evaluating) { evaluating ? parent.pause_clock() : parent.resume_clock(); };
  RunResult result;
  try {
    result = run_op(op, [&](std::vector<Tensor*>& args) {
      times = runner.run(candidate.func, args, options.repeat);
      executed = true;
    }, run);
  } catch (const std::exception& e) {
    result.passed = false;
    result.message = e.what();
  }
  ChildReport report{};
  report.verdict = result.passed ? 0 : executed ? 1 : 2;
  report.max_rel_err = result.max_rel_err;
  report.count = int(std::min<size_t>(times.size(), kMaxTimes));
  std::copy(times.begin(), times.begin() + report.count, report.times);
  std::snprintf(report.message, sizeof report.message, "%s", result.message.c_str());
  parent.send(&report, sizeof report);
}

}  // namespace

Measurement measure(const OpDef& op, const Candidate& candidate, Runner& runner, const MeasureOptions& options) {
  Measurement m;
  ChildOutcome child = run_in_child(
      [&](ChildChannel& parent) { child_main(op, candidate, runner, options, parent); }, options.timeout_s,
      options.reference_timeout_s);
  if (child.end == ChildOutcome::End::CannotStart) {
    m.status = "error";
    m.message = "cannot start a process to measure the candidate: " + child.message;
  } else if (child.end == ChildOutcome::End::TimedOut) {
    m.status = "timeout";
    char buf[64];
    if (child.paused_too_long)
      std::snprintf(buf, sizeof buf, "timeout: killed after %g s evaluating the reference", options.reference_timeout_s);
    else
      std::snprintf(buf, sizeof buf, "timeout: killed after %g s", options.timeout_s);
    m.message = buf;
  } else if (child.end == ChildOutcome::End::Signaled) {
    m.status = "crash";
    m.message = "crash (" + signal_description(child.signal) + ") in the child process that measured it";
  } else if (child.end != ChildOutcome::End::Returned || child.data.size() != sizeof(ChildReport)) {
    m.status = "crash";
    m.message = "the child process that measured it " +
                (child.end == ChildOutcome::End::Returned ? std::string("sent no report") : child.describe());
  } else {
    ChildReport report;
    std::memcpy(&report, child.data.data(), sizeof report);
    m.status = report.verdict == 0 ? "ok" : report.verdict == 1 ? "wrong" : "error";
    m.message = report.message;
    m.max_rel_err = report.max_rel_err;
    m.times.assign(report.times, report.times + report.count);
    if (m.status == "ok" && m.times.empty()) {
      m.status = "error";
      m.message = "the runner returned no times";
    }
  }
  if (!m.times.empty()) {
    m.median = median_of(m.times);
    m.min = *std::min_element(m.times.begin(), m.times.end());
    m.max = *std::max_element(m.times.begin(), m.times.end());
  }
  return m;
}

}  // namespace texc
