// make_arm_executor: an op compiled for arm (aarch64) and executed by the arm runner
// (backends/llvm/ArmRunner.h: a cross-linked driver, under qemu-aarch64 off aarch64 hosts), as the
// OpExecutor that `texc run --target arm` hands to run_op.
//
// One execution is one run of the driver: the inputs are written out, the op is called once to warm
// up and then options.repeat times under the driver's own clock, and the outputs are read back into
// the output tensors. The driver's times (median, emulated or native) are left in *timing, since the
// time run_op measures around an execution includes linking and starting the emulator.
// A failing link or run (the linker's or the program's output) is thrown as an InterpError, which
// run_op reports as a failed check; a missing tool is a MissingToolError (exit 2).
#pragma once
#include <memory>

#include "backends/interp/RunOp.h"
#include "backends/llvm/ArmRunner.h"

namespace texc {

/// `funcs`: the op's function last, after the functions it calls (the kernels of a graph,
/// docs/graph.md); usually the op's function alone.
OpExecutor make_arm_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                             const ArmRunOptions& options, std::shared_ptr<ArmRunResult> timing);

}  // namespace texc
