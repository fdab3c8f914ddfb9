// VdlaRunner: the tuner's Runner (Measure.h) for VDLA. A candidate is compiled to a VDLA program
// (backends/vdla/Codegen.h) and run on the simulator, which checks its tokens (hazards, deadlock)
// and counts cycles. The cycle count is deterministic, so one simulated call gives every round the
// same time and the spread is 0. Times are reported in milliseconds at a nominal clock
// (kVdlaNominalClockMhz; the spec sets none) so that the tuner's GFLOP/s ranks configurations
// like any other target; the device string says so and carries the configuration's name.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "backends/vdla/VdlaConfig.h"
#include "tuner/Measure.h"

namespace texc {

constexpr double kVdlaNominalClockMhz = 100.0;

/// The simulated time of `cycles` in milliseconds at the nominal clock: what `texc tune` records
/// and `texc run --target vdla` reports.
inline double vdla_cycles_to_ms(uint64_t cycles) { return double(cycles) / (kVdlaNominalClockMhz * 1e3); }

/// How the time is labelled: "simulated (cycles at a nominal 100 MHz clock)".
inline std::string vdla_timing_label() {
  return "simulated (cycles at a nominal " + std::to_string(int(kVdlaNominalClockMhz)) + " MHz clock)";
}

/// `config_name`: how the device string names the configuration ("default", a file name).
std::unique_ptr<Runner> make_vdla_runner(const vdla::VdlaConfig& config, const std::string& config_name);

}  // namespace texc
