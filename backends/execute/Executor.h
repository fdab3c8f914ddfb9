// Executor: the one way texc runs a lowered function on this host. `texc run` and Module::run
// (tools/driver/TargetExecutors.h: each target's registry entry makes one), `texc tune` (every
// tuner Runner, tuner/Measure.h, runs its candidate through one in the measuring child) and the
// schedule fuzzer (tests/schedule/ScheduleCheck.cpp, through the same registry entries as `texc
// run`) all call Executor::run.
//
// An Executor is made once for a function (compiled, loaded or handed to an interpreter then: a
// function that cannot be built fails there), then run any number of times on the caller's tensors:
//   run(args, timed_rounds)  `args` are the function's arguments, its inputs then its outputs
//                            (LoweredFunc::args order). One checked call, then `timed_rounds` timed
//                            rounds; the outputs left in `args` are those of the checked call (a
//                            kernel wrong only on its first call fails its check). Returns the
//                            time of one call in each round and their median (none for 0 rounds).
// The timing method is one: on the host, time_calls (TimeCalls.h) — warm-up, then rounds of back
// to back calls, each round at least 1 ms of work, the median of the rounds' time per call. A target
// that has a clock of its own reports that clock's times instead and labels them
// (CallTimes::label): cuda the CUDA events around each launch (tools/driver/CudaExecutor.h), arm
// the cross-compiled driver's clock ("emulated (qemu-aarch64)" or "native", ArmExecutor.h), vdla the
// simulated cycles at the nominal clock (VdlaExecutor.h).
//
// A function that cannot run — an out-of-bounds access an interpreter finds, a simulator error, a
// module LLJIT cannot link, a fault in an isolated executor — is an InterpError
// (backends/interp/InterpError.h), which run_op reports as a failed check. isolate() (Isolate.h)
// makes any Executor run in a forked child process, so that a fault in compiled or extern code never
// takes its caller down.
#pragma once
#include <cstring>
#include <vector>

#include "backends/execute/TimeCalls.h"
#include "backends/interp/Tensor.h"
#include "ir/Function.h"

namespace texc {

class Executor {
 public:
  virtual ~Executor() = default;
  /// One checked call on `args`, whose outputs stay there, then `timed_rounds` timed rounds.
  virtual CallTimes run(std::vector<Tensor*>& args, int timed_rounds) = 0;
};

/// How many of `func`'s arguments are inputs (they come first: the rest are its outputs).
size_t count_inputs(const LoweredFunc& func);

/// A host executor's run: `call` once on `args` (the checked call), then, for timed_rounds > 0, the
/// outputs (args from num_inputs on) kept aside, time_calls(call, timed_rounds), and the outputs
/// put back, so that they are the checked call's.
template <class Call>
CallTimes checked_then_timed(std::vector<Tensor*>& args, size_t num_inputs, Call&& call, int timed_rounds) {
  call();
  if (timed_rounds <= 0) return {};
  std::vector<std::vector<char>> checked;
  for (size_t i = num_inputs; i < args.size(); ++i) {
    const char* data = static_cast<const char*>(args[i]->data());
    checked.emplace_back(data, data + args[i]->num_bytes());
  }
  CallTimes times = time_calls(call, timed_rounds);
  for (size_t i = num_inputs; i < args.size(); ++i)
    std::memcpy(args[i]->data(), checked[i - num_inputs].data(), checked[i - num_inputs].size());
  return times;
}

}  // namespace texc
