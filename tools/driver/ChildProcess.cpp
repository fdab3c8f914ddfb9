#include "tools/driver/ChildProcess.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "backends/interp/InterpError.h"

namespace texc {

SharedMemory::SharedMemory(size_t bytes, const std::string& what) : bytes_(std::max<size_t>(bytes, 1)) {
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw InterpError("cannot allocate " + std::to_string(bytes) + " bytes for " + what + ": " + std::strerror(errno));
  data_ = p;
}

SharedMemory::~SharedMemory() { munmap(data_, bytes_); }

namespace {

/// What the child reports besides the results: the message of an exception from `body`.
struct ChildReport {
  char message[4096];
};

constexpr int kBodyThrew = 3;

std::string signal_description(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  const char* text = strsignal(sig);
  return text ? name + ", " + text : name;
}

[[noreturn]] void child_main(const std::vector<Tensor*>& results, const std::vector<void*>& shared,
                             const std::function<void()>& body, ChildReport* report) {
  try {
    body();
  } catch (const std::exception& e) {
    std::snprintf(report->message, sizeof report->message, "%s", e.what());
    _exit(kBodyThrew);
  }
  for (size_t i = 0; i < results.size(); ++i) std::memcpy(shared[i], results[i]->data(), results[i]->num_bytes());
  _exit(0);
}

}  // namespace

void run_in_child_process(const std::string& what, const std::vector<Tensor*>& results,
                          const std::function<void()>& body) {
  std::vector<std::unique_ptr<SharedMemory>> memory;
  std::vector<void*> shared;
  for (Tensor* t : results) {
    memory.push_back(std::make_unique<SharedMemory>(t->num_bytes(), "a copy of " + t->describe() + " of " + what));
    shared.push_back(memory.back()->data());
  }
  SharedMemory report_memory(sizeof(ChildReport), "the report of " + what);
  auto* report = static_cast<ChildReport*>(report_memory.data());
  report->message[0] = '\0';

  std::fflush(nullptr);  // nothing buffered may be written twice
  pid_t pid = fork();
  if (pid < 0) throw InterpError("cannot start a process to run " + what + ": " + std::strerror(errno));
  if (pid == 0) child_main(results, shared, body, report);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw InterpError("cannot wait for the process running " + what + ": " + std::strerror(errno));
  if (WIFSIGNALED(status))
    throw InterpError(what + " crashed (" + signal_description(WTERMSIG(status)) + ") in the child process that ran it");
  if (WIFEXITED(status) && WEXITSTATUS(status) == kBodyThrew) throw InterpError(report->message);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw InterpError("the process running " + what + " exited with status " + std::to_string(WEXITSTATUS(status)));
  for (size_t i = 0; i < results.size(); ++i) std::memcpy(results[i]->data(), shared[i], results[i]->num_bytes());
}

}  // namespace texc
