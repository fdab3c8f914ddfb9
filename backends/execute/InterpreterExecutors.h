// The Executors (Executor.h) of texc's own interpreters: the loop interpreter (the `interp`
// target, backends/interp/LoopInterpreter.h) and the CUDA interpreter (`cuda-interp`: a GPU kernel
// phase by phase between barriers, with race detection, backends/interp/CudaInterpreter.h). An
// out-of-bounds access, a data race or a barrier part of a block misses is an InterpError. Timed
// rounds by time_calls (TimeCalls.h), like every host executor's.
#pragma once
#include <memory>

#include "backends/execute/Executor.h"

namespace texc {

std::unique_ptr<Executor> make_loop_interpreter_executor(const LoweredFunc& func);
std::unique_ptr<Executor> make_cuda_interpreter_executor(const LoweredFunc& kernel);

}  // namespace texc
