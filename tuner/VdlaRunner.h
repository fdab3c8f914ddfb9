// VdlaRunner: the tuner's Runner (Measure.h) for VDLA. A candidate runs through the vdla Executor
// `texc run` uses (backends/execute/VdlaExecutor.h): compiled to a VDLA program and run on the
// simulator, which checks its tokens (hazards, deadlock) and counts cycles. The cycle count is
// deterministic, so one simulated call gives every round the same time and the spread is 0. Times
// are in milliseconds at the nominal clock (kVdlaNominalClockMhz) so that the tuner's GFLOP/s ranks
// configurations like any other target; the device string says so and carries the configuration's
// name.
#pragma once
#include <memory>
#include <string>

#include "backends/execute/VdlaExecutor.h"  // kVdlaNominalClockMhz, vdla_cycles_to_ms
#include "backends/vdla/VdlaConfig.h"
#include "tuner/Measure.h"

namespace texc {

/// `config_name`: how the device string names the configuration ("default", a file name).
std::unique_ptr<Runner> make_vdla_runner(const vdla::VdlaConfig& config, const std::string& config_name);

/// A farm worker's runner of a candidate whose program the tuner generated (tools/farm/FarmArtefact.h
/// "vdla-program"): run() simulates `program` as the runner above simulates the program it
/// generates; `device` is that runner's device().
std::unique_ptr<Runner> make_vdla_program_runner(vdla::VdlaProgram program, std::string device);

}  // namespace texc
