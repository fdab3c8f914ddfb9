#include "tuner/Measure.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "backends/interp/RunOp.h"

namespace texc {

namespace {

constexpr int kMaxTimes = 256;

/// What the child reports, in shared memory.
struct ChildReport {
  int verdict;  // 0 ok, 1 wrong, 2 error
  int count;
  double max_rel_err;
  double times[kMaxTimes];
  char message[4096];
};

std::string signal_description(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  const char* text = strsignal(sig);
  return text ? name + ", " + text : name;
}

/// The fault TEXC_TUNE_TEST_FAULT asks for `config`: "crash", "hang" or "".
std::string injected_fault(const KnobConfig& config) {
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

[[noreturn]] void child_main(const OpDef& op, const Candidate& candidate, Runner& runner, const MeasureOptions& options,
                             ChildReport* report) {
  std::string fault = injected_fault(candidate.config);
  if (fault == "crash") std::raise(SIGSEGV);
  if (fault == "hang")
    for (volatile bool forever = true; forever;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<double> times;
  bool executed = false;
  RunOptions run;
  run.target = "tune";
  run.seed = options.seed;
  run.check.seed = options.seed;
  run.reference = options.reference;
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
  report->verdict = result.passed ? 0 : executed ? 1 : 2;
  report->max_rel_err = result.max_rel_err;
  report->count = int(std::min<size_t>(times.size(), kMaxTimes));
  std::copy(times.begin(), times.begin() + report->count, report->times);
  std::snprintf(report->message, sizeof report->message, "%s", result.message.c_str());
  std::fflush(nullptr);
  _exit(0);
}

}  // namespace

Measurement measure(const OpDef& op, const Candidate& candidate, Runner& runner, const MeasureOptions& options) {
  Measurement m;
  void* shared = mmap(nullptr, sizeof(ChildReport), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    m.status = "error";
    m.message = std::string("cannot map memory for the measurement: ") + std::strerror(errno);
    return m;
  }
  auto* report = new (shared) ChildReport{};
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    munmap(shared, sizeof(ChildReport));
    m.status = "error";
    m.message = std::string("cannot start a process to measure the candidate: ") + std::strerror(errno);
    return m;
  }
  if (pid == 0) child_main(op, candidate, runner, options, report);

  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_s);
  int status = 0;
  bool timed_out = false;
  auto nap = std::chrono::microseconds(200);
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(20000));
  }

  if (timed_out) {
    m.status = "timeout";
    char buf[64];
    std::snprintf(buf, sizeof buf, "timeout: killed after %g s", options.timeout_s);
    m.message = buf;
  } else if (WIFSIGNALED(status)) {
    m.status = "crash";
    m.message = "crash (" + signal_description(WTERMSIG(status)) + ") in the child process that measured it";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    m.status = "crash";
    m.message = "the child process that measured it exited with status " + std::to_string(WEXITSTATUS(status));
  } else {
    m.status = report->verdict == 0 ? "ok" : report->verdict == 1 ? "wrong" : "error";
    m.message = report->message;
    m.max_rel_err = report->max_rel_err;
    m.times.assign(report->times, report->times + report->count);
    if (m.status == "ok" && m.times.empty()) {
      m.status = "error";
      m.message = "the runner returned no times";
    }
  }
  munmap(shared, sizeof(ChildReport));
  if (!m.times.empty()) {
    std::vector<double> sorted = m.times;
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    m.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    m.min = sorted.front();
    m.max = sorted.back();
  }
  return m;
}

}  // namespace texc
