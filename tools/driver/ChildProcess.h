// run_in_child_process: runs part of `texc run` in a forked child, so that code texc does not
// control — JIT-compiled kernels, extern functions from --extern-lib / --extern-src — can fault
// without taking texc down.
//
// The fork, the wait and the exception's way back are tuner/ChildRun.h's run_in_child.
// The child starts as a copy of texc (copy-on-write: the tensors are not copied up front), runs
// `body`, copies every tensor in `results` into memory shared with the parent, and exits with
// _exit (no atexit handlers, nothing of texc's flushed twice). The parent waits and copies
// `results` back. A child killed by a signal is thrown as an InterpError naming the signal
// ("crashed (SIGSEGV, Segmentation fault)"); an InterpError or other exception thrown by `body` in
// the child is rethrown in the parent as an InterpError with its message. Shared memory that cannot
// be allocated is an InterpError "cannot allocate N bytes for ...". The texrt thread pool is the
// child's own (runtime/texrt.h). Call it outside parallel loops, from a thread that owns no locks
// the child needs.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/interp/Tensor.h"

namespace texc {

/// Anonymous memory shared with forked children (MAP_SHARED), unmapped on destruction; throws
/// InterpError "cannot allocate N bytes for WHAT" when it cannot be mapped.
class SharedMemory {
 public:
  SharedMemory(size_t bytes, const std::string& what);
  ~SharedMemory();
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  void* data() const { return data_; }

 private:
  size_t bytes_;
  void* data_ = nullptr;
};

/// Runs `body` in a child process; `what` names it in messages ("op 'gather'").
void run_in_child_process(const std::string& what, const std::vector<Tensor*>& results,
                          const std::function<void()>& body);

}  // namespace texc
