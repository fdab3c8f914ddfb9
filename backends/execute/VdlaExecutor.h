// make_vdla_executor: the Executor (Executor.h) of a function compiled to a VDLA program
// (backends/vdla/Codegen.h) and run on the simulator with its arguments in DRAM: `texc run --target
// vdla`, Module::run and `texc tune`'s vdla runner (tuner/VdlaRunner.h).
//
// The program is generated when the executor is made (its diagnostics are thrown there). A run
// copies the inputs into DRAM, simulates once (the simulator checks the tokens: a hazard or a
// deadlock stops it, an InterpError with its message) and copies the outputs back. The cycle count
// is deterministic, so every timed round has the simulated time of that one simulation: the cycles
// in milliseconds at a nominal clock (kVdlaNominalClockMhz; the spec sets none), labelled
// simulated, so that the tuner's GFLOP/s rank configurations like any other target's. `observe`,
// when given, sees the program and the simulator's result after each run (`texc run`'s statistics
// and --trace); `record_timeline` makes the simulator keep the timeline a trace is written from.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "backends/execute/Executor.h"
#include "backends/vdla/Program.h"
#include "backends/vdla/Simulator.h"
#include "backends/vdla/VdlaConfig.h"

namespace texc {

inline constexpr double kVdlaNominalClockMhz = 100.0;

/// The simulated time of `cycles` in milliseconds at the nominal clock: what `texc tune` records
/// and `texc run --target vdla` reports.
inline double vdla_cycles_to_ms(uint64_t cycles) { return double(cycles) / (kVdlaNominalClockMhz * 1e3); }

/// How the time is labelled: "simulated (cycles at a nominal 100 MHz clock)".
inline std::string vdla_timing_label() {
  return "simulated (cycles at a nominal " + std::to_string(int(kVdlaNominalClockMhz)) + " MHz clock)";
}

using VdlaRunObserver = std::function<void(const vdla::VdlaProgram& program, vdla::SimResult& result)>;

std::unique_ptr<Executor> make_vdla_executor(const LoweredFunc& func, const vdla::VdlaConfig& config, SourceLoc loc,
                                             VdlaRunObserver observe = {}, bool record_timeline = false);
/// The same for a program generated elsewhere (a farm job's shipped program, tools/farm/FarmArtefact.h).
std::unique_ptr<Executor> make_vdla_program_executor(vdla::VdlaProgram program, VdlaRunObserver observe = {},
                                                     bool record_timeline = false);

}  // namespace texc
