// The simulator's timeline as a Trace Event Format JSON file (opens in Perfetto and
// chrome://tracing): one process "VDLA" with one track (thread) per engine — LOAD, COMPUTE,
// STORE — each instruction a complete ("X") event named like "LOAD INP" or "GEMM" with its index
// and comment in args, and each wait before an instruction its own event ("wait LOAD->COMPUTE",
// "wait DRAM port", category "wait"). Timestamps are cycles (1 cycle is shown as 1 µs).
#pragma once
#include <string>

#include "backends/vdla/Program.h"
#include "backends/vdla/Simulator.h"

namespace texc::vdla {

/// The trace of `result` (simulated with SimOptions::record_timeline) as JSON text.
std::string trace_json(const VdlaProgram& program, const SimResult& result);
/// Writes trace_json to `path`; false if it cannot be written.
bool write_trace(const std::string& path, const VdlaProgram& program, const SimResult& result);

}  // namespace texc::vdla
