// ScheduleCheck: lowers one scheduled op, runs it on a target and compares every output with the
// reference interpreter.
//
// make_executor runs the function through its target's registered Executor
// (tools/driver/TargetRegistry.h, backends/execute/Executor.h): the Executor `texc run` and `texc
// tune` run the target's code through. "interp" runs the loop AST on the loop interpreter; "x86"
// and "x86-sse" JIT-compile it through backends/llvm and run it in a child process, as `texc run`
// does; "cuda-interp" runs the GPU kernel on backends/interp/CudaInterpreter (a data race, a
// barrier part of a block misses or an out-of-bounds access is an Error). A target this machine
// cannot run (no device, no tools) throws TargetUnavailable, and the fuzzer reports that once
// instead of a failure per case.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "backends/interp/RunOp.h"
#include "ir/Function.h"
#include "ir/Op.h"

namespace texc {

class TargetUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How `func` (the lowering of `op`) runs on `target`.
OpExecutor make_executor(const OpDef& op, const LoweredFunc& func, const std::string& target);

struct CaseOutcome {
  enum class Status { Passed, Mismatch, Rejected, Error };
  Status status = Status::Error;
  std::string message;
  bool vector_code = false;  // the lowered code has vector stores (a vectorized loop was vectorized)
};

const char* status_name(CaseOutcome::Status s);

/// Lowers `op` with its own schedule blocks for `target` (--no-fuse when no_fuse), runs it on
/// seeded random inputs and checks every output. Rejected: lower_op threw a UserError. Error: the
/// lowered code could not be executed (InterpError). Mismatch: an output differs.
/// With print_changed, the IR after each pass that changed it goes to stderr.
CaseOutcome check_scheduled_op(const OpDef& op, bool no_fuse, const std::string& target, uint64_t seed,
                               bool print_changed = false);

}  // namespace texc
