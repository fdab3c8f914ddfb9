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
#include "backends/interp/CudaInterpreter.h"
#include "tools/driver/CudaExecutor.h"
#include "tools/driver/CudaRunner.h"
#include "tools/driver/targets/Targets.h"

namespace texc {

namespace {

OpExecutor make_cuda_device_executor(TargetExecutors& executors, const LoweredFunc& func, const OpDef&) {
  CudaTargetOptions cuda;
  cuda.arch = executors.options.arch;  // open_cuda_device chose it when --arch was not given
  return make_cuda_executor(func, cuda, executors.jit_repeat, executors.jit_timing);
}

// An op compiled as a graph of kernels: every kernel launched in order, intermediates on the device.
OpExecutor make_cuda_device_graph_executor(TargetExecutors& executors, const std::vector<LoweredFunc>& funcs,
                                           const OpDef&) {
  CudaTargetOptions cuda;
  cuda.arch = executors.options.arch;
  return make_cuda_graph_executor(funcs, cuda, executors.jit_repeat, executors.jit_timing);
}

// The launches are timed by CUDA events, and the result shows that time.
std::string format_cuda_result(const TargetExecutors& executors, RunResult& result, double flops, bool json) {
  if (!executors.jit_timing->times_ms.empty()) {
    result.median_ms = executors.jit_timing->median_ms;
    result.gflops = result.median_ms > 0 ? flops / (result.median_ms * 1e6) : 0;
  }
  return json ? format_result_json(result) : format_result_line(result);
}

OpExecutor make_cuda_interp_executor(TargetExecutors&, const LoweredFunc& func, const OpDef&) {
  auto interp = std::make_shared<CudaInterpreter>(func);
  return [interp](std::vector<Tensor*>& args) { interp->run(args); };
}

}  // namespace

TargetBehaviour cuda_target() {
  TargetBehaviour b;
  b.name = "cuda";
  b.open_device = [](CompileOptions& opts) { opts.arch = open_cuda_device(opts.arch).arch; };
  b.make_executor = make_cuda_device_executor;
  b.make_graph_executor = make_cuda_device_graph_executor;
  b.set_timed_calls = [](TargetExecutors& executors, int repeat) { executors.jit_repeat = repeat; };
  b.timed_calls = [](const TargetExecutors& executors) {
    return HostRunTiming{executors.jit_timing->times_ms, executors.jit_timing->median_ms};
  };
  b.format_run_result = format_cuda_result;
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
