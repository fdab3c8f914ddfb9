// `texc run --target vdla` and `texc FILE --target vdla`: the VDLA program of a lowered op
// (backends/vdla/Codegen.h), executed on the simulator with the op's arguments in DRAM by the vdla
// Executor (backends/execute/VdlaExecutor.h); here what `texc run` keeps of a run (the simulator's
// statistics, --trace) and its configuration (--vdla-config).
#pragma once
#include <memory>
#include <string>

#include "backends/execute/VdlaExecutor.h"
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

/// What the vdla Executor's observer does for `texc run`: keeps each run's result in *stats and,
/// with `trace_path`, writes the run's timeline there (whole or not at all, OutputFile.h; the
/// executor must record it: make_vdla_executor's record_timeline). A trace that cannot be written
/// is an EnvironmentError.
VdlaRunObserver keep_vdla_run(std::shared_ptr<VdlaRunStats> stats, const std::string& trace_path);

/// One line: cycles and the simulated time they make at the nominal clock, the simulator's host wall
/// time, GEMM utilization, busy cycles per engine, DRAM bytes.
std::string format_vdla_stats(const VdlaRunStats& stats);

}  // namespace texc
