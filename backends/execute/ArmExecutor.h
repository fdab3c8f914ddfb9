// make_arm_executor: the Executor (Executor.h) of functions compiled for arm (aarch64) and run by
// the arm runner (backends/llvm/ArmRunner.h: a cross-linked driver, natively on an aarch64 host,
// else under qemu-aarch64): `texc run --target arm`, Module::run and `texc tune`'s arm runner.
//
// One run is one run of the driver: the inputs (the entry's Input arguments) are written out, the
// entry is called once (the checked call: its outputs are read back into the output tensors) and
// then max(timed_rounds, 1) times under the driver's own clock. The times are the driver's (none
// for 0 rounds), labelled "emulated (qemu-aarch64)" or "native": the time around a run includes
// linking and starting the emulator. A failing link or run, or outputs of the wrong count or size,
// are an InterpError "arm: ..." (the tool's output); a missing tool a MissingToolError (exit 2).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/execute/Executor.h"
#include "backends/llvm/ArmRunner.h"

namespace texc {

/// `funcs`: the entry last, after the functions it calls (the kernels of a graph, docs/graph.md),
/// usually the entry alone. options.repeat is set by each run.
std::unique_ptr<Executor> make_arm_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                                            const ArmRunOptions& options);

/// The same Executor for an op compiled before (arm_program_parts, shipped by `texc tune
/// --compile-on tuner` to a farm's worker, docs/tuning.md): each run links the object with its
/// driver and runs it; nothing is compiled but the driver.
std::unique_ptr<Executor> make_arm_object_executor(const ArmProgramParts& parts, const std::string& name,
                                                   const ArmRunOptions& options);

}  // namespace texc
