#include "tools/texc/JitExecutor.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include "backends/interp/InterpError.h"

namespace texc {

namespace {

/// Anonymous memory shared with a forked child (MAP_SHARED), unmapped on destruction.
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

/// What the child writes back besides the outputs.
struct ChildReport {
  int timed_calls;  // how many entries of times_ms are filled
  double times_ms[1];  // `repeat` entries (the region is allocated with room for them)
};

using PackedFn = void (*)(void**);

[[noreturn]] void child_main(PackedFn packed, std::vector<void*> pointers, int repeat, ChildReport* report) {
  packed(pointers.data());  // the checked call, which also warms up
  for (int k = 0; k < repeat; ++k) {
    auto start = std::chrono::steady_clock::now();
    packed(pointers.data());
    report->times_ms[k] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    report->timed_calls = k + 1;
  }
  _exit(0);  // no atexit handlers, no flushing of texc's buffers: they belong to the parent
}

std::string signal_description(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* text = strsignal(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  return text ? name + ", " + text : name;
}

}  // namespace

OpExecutor make_jit_executor(const LoweredFunc& func, const CpuTargetOptions& target,
                             const std::map<std::string, void*>& extern_symbols, int repeat,
                             std::shared_ptr<JitTiming> timing) {
  std::shared_ptr<JitModule> jit;
  try {
    jit = JitModule::create({func}, target, extern_symbols);
  } catch (const TargetOptionError&) {
    throw;
  } catch (const std::runtime_error& e) {  // LLJIT could not link the module: this op fails, not texc
    throw InterpError(e.what());
  }
  auto packed = reinterpret_cast<PackedFn>(jit->lookup(func.name + ".packed"));
  if (!packed) throw InterpError("the compiled module has no op named '" + func.name + "'");
  std::string name = func.name;
  std::vector<std::string> arg_names;
  for (const Buffer& b : func.args) arg_names.push_back(b->name);
  repeat = std::max(repeat, 0);
  return [jit, packed, name, arg_names, repeat, timing](std::vector<Tensor*>& args) {
    std::vector<std::unique_ptr<SharedMemory>> shared;
    std::vector<void*> pointers;
    for (size_t i = 0; i < args.size(); ++i) {
      std::string what = "argument '" + (i < arg_names.size() ? arg_names[i] : std::to_string(i)) + "' (" +
                         args[i]->describe() + ") of op '" + name + "'";
      shared.push_back(std::make_unique<SharedMemory>(args[i]->num_bytes(), what));
      std::memcpy(shared.back()->data(), args[i]->data(), args[i]->num_bytes());
      pointers.push_back(shared.back()->data());
    }
    SharedMemory report_memory(sizeof(ChildReport) + sizeof(double) * size_t(repeat), "the times of op '" + name + "'");
    auto* report = static_cast<ChildReport*>(report_memory.data());
    report->timed_calls = 0;

    std::fflush(nullptr);  // nothing buffered may be written twice
    pid_t pid = fork();
    if (pid < 0) throw InterpError("cannot start a process to run op '" + name + "': " + std::strerror(errno));
    if (pid == 0) child_main(packed, pointers, repeat, report);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) throw InterpError("cannot wait for the process running op '" + name + "': " + std::strerror(errno));
    }
    if (WIFSIGNALED(status))
      throw InterpError("the compiled op '" + name + "' crashed (" + signal_description(WTERMSIG(status)) +
                        ") in the child process that ran it");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw InterpError("the process running the compiled op '" + name + "' exited with status " +
                        std::to_string(WEXITSTATUS(status)));
    for (size_t i = 0; i < args.size(); ++i) std::memcpy(args[i]->data(), pointers[i], args[i]->num_bytes());
    timing->times_ms.assign(report->times_ms, report->times_ms + report->timed_calls);
    std::vector<double> sorted = timing->times_ms;
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    timing->median_ms = n == 0 ? 0 : n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  };
}

}  // namespace texc
