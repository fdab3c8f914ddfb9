// run_in_child: the one way texc runs code it does not trust in a forked child process — an
// isolated Executor's runs (Isolate.h: an op run by `texc run` and Module::run), a candidate
// measured by the tuner (tuner/Measure.h), the CUDA device probe (tools/driver/CudaRunner.h), a
// case of the schedule fuzzer (tests/schedule) — so that a crash, a hang or an exception there is
// an outcome the caller reports, never the end of texc.
//
// Standard output and error are flushed before the fork (nothing buffered is written twice). The
// child runs `body`, which sends what the parent should learn through its ChildChannel (a pipe: the
// bytes arrive in order, and what was sent before a crash still arrives), and ends with _exit (no
// atexit handlers): status 0 when `body` returned; when it threw a std::exception, a status of its
// own and the exception's message, which reaches the parent through shared memory. The parent
// reads what the child sends until the child closes the pipe by exiting; a child still running
// `timeout_s` seconds after the fork (when > 0) is killed with SIGKILL; the time the child spends
// between ChildChannel::pause_clock() and resume_clock() (a measurement's reference values, which
// are not the candidate's time) does not count, up to `max_paused_s` in all, past which it is killed
// too (ChildOutcome::paused_too_long). The child starts as a copy
// of the parent (copy-on-write); the texrt thread pool is the child's own. Call it outside parallel
// loops, from a thread that owns no locks the child needs.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

namespace texc {

/// How a child process ended, and what it sent.
struct ChildOutcome {
  enum class End {
    Returned,     // body returned: the child exited with status 0
    Threw,        // body threw: `message` is the exception's what()
    Signaled,     // killed by `signal` (a crash: SIGSEGV, SIGBUS, SIGABRT ...)
    Exited,       // exited with `exit_status` other than by returning (an _exit or exit in body)
    TimedOut,     // still running after timeout_s: killed
    CannotStart,  // no pipe, no shared memory or no fork: `message` says why
  };
  End end = End::Returned;
  int signal = 0;
  int exit_status = 0;
  double timeout_s = 0;
  double max_paused_s = 0;
  bool paused_too_long = false;  // TimedOut while its clock was paused, past max_paused_s
  std::string message;
  std::string data;  // everything the child sent, in order

  bool returned() const { return end == End::Returned; }
  /// The way it ended, for a message: "crashed (SIGSEGV, Segmentation fault)", "timed out (killed
  /// after 60 s)", "exited with status 3", the exception's message, or why it could not start.
  std::string describe() const;
};

/// The child's end of the pipe to its parent.
class ChildChannel {
 public:
  explicit ChildChannel(int fd, std::atomic<int>* paused = nullptr) : fd_(fd), paused_(paused) {}
  void send(const void* data, size_t size);
  void send(const std::string& text) { send(text.data(), text.size()); }
  /// Until resume_clock(), the parent's timeout_s stands still (its max_paused_s runs instead).
  void pause_clock();
  void resume_clock();

 private:
  int fd_;
  std::atomic<int>* paused_;
};

/// Runs `body` in a forked child; returns when the child has ended (or was killed).
ChildOutcome run_in_child(const std::function<void(ChildChannel&)>& body, double timeout_s = 0,
                          double max_paused_s = 600);

/// "SIGSEGV, Segmentation fault" for SIGSEGV.
std::string signal_description(int sig);

}  // namespace texc
