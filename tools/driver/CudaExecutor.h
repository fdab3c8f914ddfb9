// `texc run --target cuda`: the op's kernel on CUDA device 0 through the driver API
// (runtime/CudaDriver.h: libcuda.so.1 loaded with dlopen; texc does not link against CUDA; PTX loaded,
// kernels found and launched by runtime/CudaKernel.h, as compiled objects do through texrt_cuda_launch).
//
// open_cuda_device loads the driver and finds device 0, or throws EnvironmentError (exit 2) with
// "no CUDA device: ..." (cli.md); it also chooses the PTX architecture: --arch when given (an arch
// newer than the device is an EnvironmentError), else the newest of ir/Target.h's that the device
// runs (an sm_100 device gets sm_90 PTX, which its driver compiles).
//
// make_cuda_executor compiles the op (a device function of the cuda lowering) to PTX and loads it
// into device 0's primary context (cuModuleLoadDataEx; a PTX the driver rejects is an InterpError
// carrying the driver's log: a FAIL line), and returns its Executor (backends/execute/Executor.h),
// which `texc run`, Module::run and `texc tune`'s cuda runner (CudaRunner.h) run it through. Each
// run allocates device memory for every argument, copies all of them in (the outputs too: run_op
// fills them with NaN, so an element the kernel does not write fails the check), launches the
// kernel once (the checked call, also the warm-up) and copies its outputs back (those are checked:
// a kernel wrong only on its first launch fails), then launches it `timed_rounds` more times with a
// CUDA event recorded after each launch. The time of a launch is the elapsed time between its
// events (cuEventElapsedTime: GPU time, no host overhead), labelled "CUDA events". A refused launch
// or a kernel that fails while running (an illegal address) is an InterpError; a kernel fault
// leaves the context unusable, so the ops after it fail too.
#pragma once
#include <memory>
#include <string>

#include "backends/execute/Executor.h"
#include "backends/llvm/CudaBackend.h"

namespace texc {

struct CudaDeviceInfo {
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int compute_capability = 0;  // 90
  std::string arch;  // the PTX target to use: "sm_90"
};

/// Device 0, and the architecture to compile for (`requested_arch`, "" = the device's own).
CudaDeviceInfo open_cuda_device(const std::string& requested_arch);

std::unique_ptr<Executor> make_cuda_executor(const LoweredFunc& func, const CudaTargetOptions& target);
/// The same for a kernel compiled elsewhere (a farm job's shipped PTX, tools/farm/FarmArtefact.h):
/// `ptx` holds the `.entry` of op `name`, launched with `launch`; the first `num_inputs` arguments
/// are inputs, the rest outputs (copied back).
std::unique_ptr<Executor> make_cuda_ptx_executor(const std::string& ptx, const std::string& name,
                                                 const CudaLaunchConfig& launch, size_t num_inputs);

/// An op compiled as a graph of kernels (docs/graph.md): `funcs` are its kernels then its host
/// entry (ir/KernelCalls.h). The kernels are one PTX module, loaded once. Each execution allocates
/// and copies the op's arguments as make_cuda_executor does, allocates the workspace (the
/// intermediates) in device memory, launches the kernels in the entry's order on the default
/// stream, each with its own grid, block and shared memory, synchronizes and copies the outputs
/// back (the checked run), then runs the whole graph `timed_rounds` more times between CUDA events
/// (labelled "CUDA events"): a time is that of every kernel of one run.
std::unique_ptr<Executor> make_cuda_graph_executor(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target);

}  // namespace texc
