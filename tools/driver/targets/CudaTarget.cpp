// cuda and cuda-interp: the GPU lowering's kernels.
//   cuda         run on CUDA device 0 through the driver API (CudaExecutor.h), which must be opened
//                first (open_cuda_device: "no CUDA device" exits 2; it resolves --arch to the
//                device's own when none is given); the launches are timed by CUDA events, and
//                `texc tune` measures candidates on the device (CudaRunner.h). It writes PTX, the
//                kernels' LLVM IR, and a host object (PTX embedded) with its header.
//   cuda-interp  the kernel's threads run phase by phase between barriers on the loop interpreter,
//                checked for data races (backends/interp/CudaInterpreter.h); a race, or a barrier
//                part of a block misses, is a FAIL line. Called once by `texc run`; no tuning runner.
#include "backends/interp/CudaInterpreter.h"
#include "backends/llvm/CudaBackend.h"
#include "ir/Diagnostics.h"
#include "tools/driver/EnvironmentError.h"
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

// The launches are timed by CUDA events, and the result shows that time.
std::string format_cuda_result(const TargetExecutors& executors, RunResult& result, double flops, bool json) {
  if (!executors.jit_timing->times_ms.empty()) {
    result.median_ms = executors.jit_timing->median_ms;
    result.gflops = result.median_ms > 0 ? flops / (result.median_ms * 1e6) : 0;
  }
  return json ? format_result_json(result) : format_result_line(result);
}

// obj (the host functions, PTX embedded), header, ptx, llvm (the kernels' IR). Ops the lowering
// left as host functions (no thread binding) cannot run on a GPU.
void write_cuda_output(ModuleOutput& out, const std::string& kind, const std::string& path) {
  const std::vector<LoweredFunc>& funcs = out.functions;
  for (const LoweredFunc& func : funcs)
    if (func.kind != FunctionKind::Device)
      throw EnvironmentError("target 'cuda' needs the GPU lowering, which this build of texc lacks: op '" + func.name +
                             "' was lowered to host loops with no thread binding");
  CudaTargetOptions cuda;
  if (!out.options.arch.empty()) cuda.arch = out.options.arch;
  if (kind == "ptx") return write_output_text(path, emit_ptx(funcs, cuda));
  if (kind == "llvm") return write_output_text(path, emit_cuda_llvm_ir(funcs, cuda));
  if (kind == "header") return write_output_text(path, emit_cuda_host_header(funcs));
  TEXC_CHECK(kind == "obj") << "output '" << kind << "' of 'cuda' passed output_refusal";
  try {
    write_output_through(path, [&](const std::string& file) { write_cuda_host_object(funcs, cuda, file); });
  } catch (const OptionError&) {
    throw;
  } catch (const std::runtime_error& e) {  // the object file could not be written
    throw EnvironmentError(e.what());
  }
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
  b.set_timed_calls = [](TargetExecutors& executors, int repeat) { executors.jit_repeat = repeat; };
  b.timed_calls = [](const TargetExecutors& executors) {
    return HostRunTiming{executors.jit_timing->times_ms, executors.jit_timing->median_ms};
  };
  b.format_run_result = format_cuda_result;
  b.make_tuning_runner = [](const CompileOptions& opts) { return make_cuda_runner(opts.arch); };
  b.write_output = write_cuda_output;
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
