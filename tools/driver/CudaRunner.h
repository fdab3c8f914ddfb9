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

#include "tuner/Measure.h"

namespace texc {

/// `requested_arch`: --arch ("" = the device's own, as texc run chooses it).
std::unique_ptr<Runner> make_cuda_runner(const std::string& requested_arch);

}  // namespace texc
