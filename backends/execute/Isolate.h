// isolate: an Executor (Executor.h) whose every run happens in a forked child process — how `texc
// run` and Module::run execute code texc does not control (JIT-compiled kernels, extern functions
// from --extern-lib / --extern-src), so that a fault there is a failed check, never the end of texc.
//
// The fork, the wait and the exception's way back are run_in_child's (ChildRun.h). The child starts
// as a copy of the caller (copy-on-write: the tensors are not copied up front), runs the wrapped
// executor on `args`, copies every output (args from num_inputs on) into memory shared with the
// parent and sends the times back; the parent copies the outputs back into `args`. A child killed by
// a signal is an InterpError "WHAT crashed (SIGSEGV, Segmentation fault) in the child process that
// ran it"; an exception thrown in the child is an InterpError with its message; shared memory that
// cannot be allocated is an InterpError "cannot allocate N bytes for ...". The texrt thread pool is
// the child's own. Run it outside parallel loops, from a thread that owns no locks the child needs.
#pragma once
#include <memory>
#include <string>

#include "backends/execute/Executor.h"

namespace texc {

/// `what` names the code in messages ("the compiled op 'matmul'").
std::unique_ptr<Executor> isolate(std::shared_ptr<Executor> executor, std::string what, size_t num_inputs);

}  // namespace texc
