#include "backends/execute/Isolate.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "backends/execute/ChildRun.h"
#include "backends/interp/InterpError.h"

namespace texc {

namespace {

/// Anonymous memory shared with forked children (MAP_SHARED), unmapped on destruction.
class SharedMemory {
 public:
  SharedMemory(size_t bytes, const std::string& what) : bytes_(std::max<size_t>(bytes, 1)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw InterpError("cannot allocate " + std::to_string(bytes) + " bytes for " + what + ": " + std::strerror(errno));
    data_ = p;
  }
  ~SharedMemory() { munmap(data_, bytes_); }
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  void* data() const { return data_; }

 private:
  size_t bytes_;
  void* data_ = nullptr;
};

class IsolatedExecutor : public Executor {
 public:
  IsolatedExecutor(std::shared_ptr<Executor> executor, std::string what, size_t num_inputs)
      : executor_(std::move(executor)), what_(std::move(what)), num_inputs_(num_inputs) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    std::vector<Tensor*> outputs(args.begin() + std::min(num_inputs_, args.size()), args.end());
    std::vector<std::unique_ptr<SharedMemory>> shared;
    for (Tensor* t : outputs)
      shared.push_back(std::make_unique<SharedMemory>(t->num_bytes(), "a copy of " + t->describe() + " of " + what_));
    // The child sends its times (a count, the times, the median) and its label, in that order.
    ChildOutcome outcome = run_in_child([&](ChildChannel& parent) {
      CallTimes times = executor_->run(args, timed_rounds);
      for (size_t i = 0; i < outputs.size(); ++i) std::memcpy(shared[i]->data(), outputs[i]->data(), outputs[i]->num_bytes());
      size_t count = times.times_ms.size();
      parent.send(&count, sizeof count);
      if (count > 0) parent.send(times.times_ms.data(), count * sizeof(double));
      parent.send(&times.median_ms, sizeof(double));
      parent.send(times.label);
    });
    switch (outcome.end) {
      case ChildOutcome::End::Returned: break;
      case ChildOutcome::End::Threw: throw InterpError(outcome.message);
      case ChildOutcome::End::Signaled:
        throw InterpError(what_ + " " + outcome.describe() + " in the child process that ran it");
      case ChildOutcome::End::CannotStart:
        throw InterpError("cannot start a process to run " + what_ + ": " + outcome.message);
      default: throw InterpError("the process running " + what_ + " " + outcome.describe());
    }
    for (size_t i = 0; i < outputs.size(); ++i) std::memcpy(outputs[i]->data(), shared[i]->data(), outputs[i]->num_bytes());
    return read_times(outcome.data);
  }

 private:
  CallTimes read_times(const std::string& data) const {
    CallTimes times;
    size_t count = 0;
    if (data.size() < sizeof count) throw InterpError("the process running " + what_ + " sent no times");
    std::memcpy(&count, data.data(), sizeof count);
    size_t fixed = sizeof count + count * sizeof(double) + sizeof(double);
    if (data.size() < fixed) throw InterpError("the process running " + what_ + " sent its times cut short");
    times.times_ms.resize(count);
    if (count > 0) std::memcpy(times.times_ms.data(), data.data() + sizeof count, count * sizeof(double));
    std::memcpy(&times.median_ms, data.data() + sizeof count + count * sizeof(double), sizeof(double));
    times.label = data.substr(fixed);
    return times;
  }

  std::shared_ptr<Executor> executor_;
  std::string what_;
  size_t num_inputs_;
};

}  // namespace

std::unique_ptr<Executor> isolate(std::shared_ptr<Executor> executor, std::string what, size_t num_inputs) {
  return std::make_unique<IsolatedExecutor>(std::move(executor), std::move(what), num_inputs);
}

}  // namespace texc
