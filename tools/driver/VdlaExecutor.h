// `texc run --target vdla` and `texc FILE --target vdla`: the VDLA program of a lowered op
// (backends/vdla/Codegen.h), executed on the simulator with the op's arguments in DRAM.
#pragma once
#include <memory>
#include <string>

#include "backends/interp/RunOp.h"
#include "backends/vdla/Program.h"
#include "backends/vdla/Simulator.h"
#include "ir/Function.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// The configuration file opts.vdla_config names (--vdla-config), or the spec's defaults.
vdla::VdlaConfig vdla_config_of(const CompileOptions& opts);

/// What the last simulated run of an op reported.
struct VdlaRunStats {
  vdla::SimResult result;
  bool ran = false;
  double host_ms = 0;  // the simulator's wall time on this host (not the simulated time)
};

/// Compiles `func` now (diagnostics are thrown here) and returns an executor that copies the
/// inputs into DRAM, simulates, and copies the outputs back; a simulator error fails the run
/// with its message. With `trace_path`, the last run's timeline is written there.
OpExecutor make_vdla_executor(const LoweredFunc& func, const vdla::VdlaConfig& config, SourceLoc loc,
                              std::shared_ptr<VdlaRunStats> stats, const std::string& trace_path);

/// One line: cycles and the simulated time they make at the nominal clock, the simulator's host wall
/// time, GEMM utilization, busy cycles per engine, DRAM bytes.
std::string format_vdla_stats(const VdlaRunStats& stats);

}  // namespace texc
