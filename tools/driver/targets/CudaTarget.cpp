// cuda and cuda-interp: the GPU lowering's kernels.
//   cuda         run on CUDA device 0 through the driver API (CudaExecutor.h), which must be opened
//                first (open_cuda_device: "no CUDA device" exits 2; it resolves --arch to the
//                device's own when none is given); the launches are timed by CUDA events, and
//                `texc tune` measures candidates on the device (CudaRunner.h). An op compiled as a
//                graph of kernels launches them in order, its intermediates in device memory.
//   cuda-interp  the kernel's threads run phase by phase between barriers on the loop interpreter,
//                checked for data races (backends/interp/CudaInterpreter.h); a race, or a barrier
//                part of a block misses, is a FAIL line. Called once by `texc run`; no tuning runner.
//                A graph of kernels runs them one by one (GraphExecutor.h).
#include "backends/execute/InterpreterExecutors.h"
#include "tools/driver/CudaExecutor.h"
#include "tools/driver/CudaRunner.h"
#include "tools/driver/targets/Targets.h"

namespace texc {

namespace {

std::shared_ptr<Executor> make_cuda_device_executor(TargetExecutors& executors, const LoweredFunc& func, const OpDef&) {
  CudaTargetOptions cuda;
  cuda.arch = executors.options.arch;  // open_cuda_device chose it when --arch was not given
  return make_cuda_executor(func, cuda);
}

// An op compiled as a graph of kernels: every kernel launched in order, intermediates on the device.
std::shared_ptr<Executor> make_cuda_device_graph_executor(TargetExecutors& executors,
                                                          const std::vector<LoweredFunc>& funcs, const OpDef&) {
  CudaTargetOptions cuda;
  cuda.arch = executors.options.arch;
  return make_cuda_graph_executor(funcs, cuda);
}

std::shared_ptr<Executor> make_cuda_interp_executor(TargetExecutors&, const LoweredFunc& func, const OpDef&) {
  return make_cuda_interpreter_executor(func);
}

}  // namespace

TargetBehaviour cuda_target() {
  TargetBehaviour b;
  b.name = "cuda";
  b.open_device = [](CompileOptions& opts) { opts.arch = open_cuda_device(opts.arch).arch; };
  b.make_executor = make_cuda_device_executor;
  b.times_own_calls = true;  // the CUDA events around each launch
  b.format_run_result = format_own_timed_result;
  b.make_graph_executor = make_cuda_device_graph_executor;
  b.make_tuning_runner = [](const CompileOptions& opts) { return make_cuda_runner(opts.arch); };
  return b;
}

TargetBehaviour cuda_interp_target() {
  TargetBehaviour b;
  b.name = "cuda-interp";
  b.run_repeat = 1;
  b.make_executor = make_cuda_interp_executor;
  return b;
}

}  // namespace texc
