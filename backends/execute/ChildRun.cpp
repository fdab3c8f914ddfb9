#include "backends/execute/ChildRun.h"

#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace texc {

namespace {

/// The message of an exception thrown by body, and whether its clock is paused, in memory shared
/// with the parent.
struct ThrownMessage {
  char text[4096];
  std::atomic<int> paused{0};
};

constexpr int kBodyThrew = 3;

[[noreturn]] void child_main(const std::function<void(ChildChannel&)>& body, int fd, ThrownMessage* thrown) {
  ChildChannel channel(fd, &thrown->paused);
  try {
    body(channel);
  } catch (const std::exception& e) {
    std::snprintf(thrown->text, sizeof thrown->text, "%s", e.what());
    _exit(kBodyThrew);
  }
  _exit(0);
}

}  // namespace

void ChildChannel::send(const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  for (size_t done = 0; done < size;) {
    ssize_t n = ::write(fd_, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone
    done += size_t(n);
  }
}

void ChildChannel::pause_clock() {
  if (paused_) paused_->store(1);
}

void ChildChannel::resume_clock() {
  if (paused_) paused_->store(0);
}

std::string signal_description(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  const char* text = strsignal(sig);
  return text ? name + ", " + text : name;
}

std::string ChildOutcome::describe() const {
  switch (end) {
    case End::Returned: return "returned";
    case End::Threw: return message;
    case End::Signaled: return "crashed (" + signal_description(signal) + ")";
    case End::Exited: return "exited with status " + std::to_string(exit_status);
    case End::TimedOut: {
      char buf[64];
      if (paused_too_long) std::snprintf(buf, sizeof buf, "timed out (killed after %g s paused)", max_paused_s);
      else std::snprintf(buf, sizeof buf, "timed out (killed after %g s)", timeout_s);
      return buf;
    }
    case End::CannotStart: return message;
  }
  return message;
}

ChildOutcome run_in_child(const std::function<void(ChildChannel&)>& body, double timeout_s, double max_paused_s) {
  ChildOutcome outcome;
  outcome.timeout_s = timeout_s;
  outcome.max_paused_s = max_paused_s;
  void* shared = mmap(nullptr, sizeof(ThrownMessage), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    outcome.end = ChildOutcome::End::CannotStart;
    outcome.message = std::string("cannot map memory for a child process: ") + std::strerror(errno);
    return outcome;
  }
  auto* thrown = new (shared) ThrownMessage{};
  int fds[2];
  if (::pipe(fds) != 0) {
    outcome.end = ChildOutcome::End::CannotStart;
    outcome.message = std::string("cannot make a pipe: ") + std::strerror(errno);
    munmap(shared, sizeof(ThrownMessage));
    return outcome;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // nothing buffered may be written twice
  pid_t pid = ::fork();
  if (pid < 0) {
    outcome.end = ChildOutcome::End::CannotStart;
    outcome.message = std::string("cannot fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    munmap(shared, sizeof(ThrownMessage));
    return outcome;
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(body, fds[1], thrown);
  }
  ::close(fds[1]);

  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  auto last_look = Clock::now();
  double paused_s = 0;
  constexpr int kPauseLookMs = 20;  // how often the parent looks whether the child paused its clock
  bool timed_out = false;
  char buf[65536];
  for (;;) {
    int wait_ms = -1;
    if (timeout_s > 0) {
      // Time the child spent with its clock paused moves the deadline (to the nearest look).
      auto now = Clock::now();
      if (thrown->paused.load()) {
        deadline += now - last_look;
        paused_s += std::chrono::duration<double>(now - last_look).count();
        if (paused_s > max_paused_s) {
          timed_out = outcome.paused_too_long = true;
          break;
        }
      }
      last_look = now;
      auto left_us = std::chrono::duration_cast<std::chrono::microseconds>(deadline - now).count();
      if (left_us <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = int(std::min<long long>((left_us + 999) / 1000, kPauseLookMs));  // rounded up: never early
    }
    pollfd p{fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline is checked above
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed the pipe: it has ended
    outcome.data.append(buf, size_t(n));
  }
  if (timed_out) ::kill(pid, SIGKILL);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    outcome.end = ChildOutcome::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    outcome.end = ChildOutcome::End::Signaled;
    outcome.signal = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    outcome.end = ChildOutcome::End::Returned;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kBodyThrew && thrown->text[0]) {
    outcome.end = ChildOutcome::End::Threw;
    outcome.message = thrown->text;
  } else {
    outcome.end = ChildOutcome::End::Exited;
    outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  munmap(shared, sizeof(ThrownMessage));
  return outcome;
}

}  // namespace texc
