#include "tools/driver/ChildProcess.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "backends/interp/InterpError.h"
#include "tuner/ChildRun.h"

namespace texc {

SharedMemory::SharedMemory(size_t bytes, const std::string& what) : bytes_(std::max<size_t>(bytes, 1)) {
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw InterpError("cannot allocate " + std::to_string(bytes) + " bytes for " + what + ": " + std::strerror(errno));
  data_ = p;
}

SharedMemory::~SharedMemory() { munmap(data_, bytes_); }

void run_in_child_process(const std::string& what, const std::vector<Tensor*>& results,
                          const std::function<void()>& body) {
  std::vector<std::unique_ptr<SharedMemory>> memory;
  std::vector<void*> shared;
  for (Tensor* t : results) {
    memory.push_back(std::make_unique<SharedMemory>(t->num_bytes(), "a copy of " + t->describe() + " of " + what));
    shared.push_back(memory.back()->data());
  }
  ChildOutcome outcome = run_in_child([&](ChildChannel&) {
    body();
    for (size_t i = 0; i < results.size(); ++i) std::memcpy(shared[i], results[i]->data(), results[i]->num_bytes());
  });
  switch (outcome.end) {
    case ChildOutcome::End::Returned: break;
    case ChildOutcome::End::Threw: throw InterpError(outcome.message);
    case ChildOutcome::End::Signaled:
      throw InterpError(what + " " + outcome.describe() + " in the child process that ran it");
    case ChildOutcome::End::CannotStart:
      throw InterpError("cannot start a process to run " + what + ": " + outcome.message);
    default: throw InterpError("the process running " + what + " " + outcome.describe());
  }
  for (size_t i = 0; i < results.size(); ++i) std::memcpy(results[i]->data(), shared[i], results[i]->num_bytes());
}

}  // namespace texc
