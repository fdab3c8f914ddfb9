// CudaRunner: the tuner's Runner (tuner/Measure.h) for `texc tune --target cuda`: a candidate's
// kernel on CUDA device 0, timed by CUDA events (tools/driver/CudaExecutor.h: one checked launch, then
// `repeat` timed launches, each the elapsed time between two events).
//
// The CUDA driver cannot be used across fork(), and the tuner measures every candidate in a forked
// child (Measure.h), so the tuning process itself never touches the driver: make_cuda_runner finds
// the device in a child of its own (open_cuda_device there; the device's name and PTX architecture
// come back through a pipe), and each measuring child loads the driver afresh. No driver or no
// device: EnvironmentError "no CUDA device: ..." (exit 2), as texc run says it.
#pragma once
#include <memory>
#include <string>

#include "backends/llvm/CudaBackend.h"
#include "tuner/Measure.h"

namespace texc {

/// `requested_arch`: --arch ("" = the device's own, as texc run chooses it).
std::unique_ptr<Runner> make_cuda_runner(const std::string& requested_arch);

/// The architecture in a CUDA runner's device() ("cuda / NVIDIA H100 80GB HBM3 (sm_90)" -> "sm_90"),
/// "" for another runner's: what a farm's cuda workers compile for, which the tuner reads.
std::string cuda_arch_of_device(const std::string& device);

/// A farm worker's runner of a candidate whose PTX the tuner compiled (tools/farm/FarmArtefact.h
/// "cuda-ptx"): run() loads `ptx` on device 0 in the measuring child and launches its entry (the
/// candidate's name) with `launch`, as the CUDA runner does with the PTX it compiles itself;
/// `device` is that runner's device(), `num_inputs` the op's inputs.
std::unique_ptr<Runner> make_cuda_ptx_runner(std::string ptx, const CudaLaunchConfig& launch, size_t num_inputs,
                                             std::string device);

}  // namespace texc
