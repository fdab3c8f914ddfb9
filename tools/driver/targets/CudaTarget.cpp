// cuda and cuda-interp: the GPU lowering's kernels.
//   cuda         run on CUDA device 0 through the driver API (CudaExecutor.h), which must be opened
//                first (open_cuda_device: "no CUDA device" exits 2; it resolves --arch to the
//                device's own when none is given); the launches are timed by CUDA events, and
//                `texc tune` measures candidates on the device (CudaRunner.h). An op compiled as a
//                graph of kernels launches them in order, its intermediates in device memory. It
//                writes PTX, the kernels' LLVM IR, and a host object (PTX embedded) with its header.
//   cuda-interp  the kernel's threads run phase by phase between barriers on the loop interpreter,
//                checked for data races (backends/interp/CudaInterpreter.h); a race, or a barrier
//                part of a block misses, is a FAIL line. Called once by `texc run`; no tuning runner.
//                A graph of kernels runs them one by one (GraphExecutor.h).
#include "backends/execute/InterpreterExecutors.h"
#include "backends/llvm/CudaBackend.h"
#include "ir/Diagnostics.h"
#include "ir/KernelCalls.h"
#include "lower/gpu/MmaIntrinsics.h"
#include "tools/driver/EnvironmentError.h"
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

// obj (the host functions, PTX embedded), header, ptx, llvm (the kernels' IR). Ops the lowering
// left as host functions (no thread binding) cannot run on a GPU; the host entry of a graph of
// kernels (kernel_calls) is a host function that launches its kernels.
void write_cuda_output(ModuleOutput& out, const std::string& kind, const std::string& path) {
  const std::vector<LoweredFunc>& funcs = out.functions;
  std::vector<LoweredFunc> kernels;
  for (const LoweredFunc& func : funcs) {
    if (func.kind == FunctionKind::Device) kernels.push_back(func);
    else if (!kernel_calls(func))
      throw EnvironmentError("target 'cuda' needs the GPU lowering, which this build of texc lacks: op '" + func.name +
                             "' was lowered to host loops with no thread binding");
  }
  CudaTargetOptions cuda;
  if (!out.options.arch.empty()) cuda.arch = out.options.arch;
  if (kind == "ptx") return write_output_text(path, emit_ptx(kernels, cuda));
  if (kind == "llvm") return write_output_text(path, emit_cuda_llvm_ir(kernels, cuda));
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
  b.write_output = write_cuda_output;
  b.builtin_intrinsics = [](const CompileOptions&) { return cuda_mma_intrinsics(); };
  return b;
}

TargetBehaviour cuda_interp_target() {
  TargetBehaviour b;
  b.name = "cuda-interp";
  b.run_repeat = 1;
  b.make_executor = make_cuda_interp_executor;
  b.builtin_intrinsics = [](const CompileOptions&) { return cuda_mma_intrinsics(); };
  return b;
}

}  // namespace texc
