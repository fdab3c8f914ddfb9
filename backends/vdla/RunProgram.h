// Running a VdlaProgram on host tensors: the inputs copied into a fresh DRAM image at their
// offsets, the simulator run, the outputs copied back. Shared by `texc run --target vdla`
// (tools/driver/VdlaExecutor.h) and the tuner's VDLA runner (tuner/VdlaRunner.h).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "backends/vdla/Program.h"
#include "backends/vdla/Simulator.h"

namespace texc::vdla {

/// One tensor argument's host memory, in the order of program.args.
struct HostTensor {
  void* data;
  size_t bytes;
};

/// Simulates `program` with `args`; outputs are copied back only when the run succeeds. An
/// argument count or size that does not match the program is returned as an InvalidStream error.
SimResult run_with_arguments(const VdlaProgram& program, const std::vector<HostTensor>& args, const SimOptions& options = {});

}  // namespace texc::vdla
