// What the GPU lowering tests share: lowering an op for cuda-interp, its launch extents as text,
// and running it on cuda-interp (threads phase by phase between barriers, checked for data races:
// backends/interp/CudaInterpreter.h) against the reference interpreter.
#pragma once
#include <string>

#include "backends/interp/CudaInterpreter.h"
#include "backends/interp/InterpError.h"
#include "lower/gpu/Barriers.h"
#include "schedule_test_support.h"

namespace texc::testing {

inline LoweredFunc lower_cuda(const OpDef& op, const std::string& arch = "") {
  LowerOptions options;
  options.target = "cuda-interp";
  options.arch = arch;
  return lower_op(op, options);
}

/// "blockIdx.x=3 threadIdx.x=8 ".
inline std::string launch_of(const LoweredFunc& f) {
  std::string out;
  for (const auto& e : f.launch.thread_extents) out += e.tag + "=" + to_string(e.extent) + " ";
  return out;
}

/// "" when `f` (lowered from `op`) runs on cuda-interp with inputs of `seed` and matches the
/// reference; else why not (a race, a wrong result, an interpreter error).
inline std::string run_on_cuda_interp(const OpDef& op, const LoweredFunc& f, uint64_t seed = 1) {
  try {
    CudaInterpreter interpreter(f);
    OpExecutor execute = [&](std::vector<Tensor*>& args) { interpreter.run(args); };
    RunOptions options;
    options.seed = seed;
    RunResult result = run_op(op, execute, options);
    return result.passed ? "" : result.message + "\n" + to_string(f);
  } catch (const InterpError& e) {
    return e.what();
  }
}

}  // namespace texc::testing
