// make_tuning_runner: the tuner's Runner (tuner/Measure.h) for the compile options' target — how
// `texc tune` measures a candidate, as the target's entry in TargetRegistry.h says: the x86 targets
// JIT-compiled (tuner/CpuRunners.h), interp on the loop interpreter, arm under the arm runner (its
// tools checked first), vdla on the simulator with opts.vdla_config (tuner/VdlaRunner.h), cuda on
// device 0 (CudaRunner.h). cuda-interp has none: an EnvironmentError.
#pragma once
#include <memory>

#include "tools/driver/CompileOptions.h"
#include "tuner/Measure.h"

namespace texc {

/// Throws TargetOptionError for an unknown mcpu, MissingToolError for a missing arm tool,
/// EnvironmentError for a target with no runner or no CUDA device.
std::unique_ptr<Runner> make_tuning_runner(const CompileOptions& opts);

}  // namespace texc
