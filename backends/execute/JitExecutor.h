// make_jit_executor: the Executor (Executor.h) of functions compiled for an x86 CPU and run in this
// process (backends/llvm JitModule, ORC LLJIT): `texc tune`'s x86 runner (tuner/CpuRunners.h) and
// the schedule fuzzer run it as it is, `texc run` and Module::run isolated in a child process
// (Isolate.h, tools/driver/targets/X86Target.cpp). Timed rounds by time_calls (TimeCalls.h).
//
// The functions are compiled and linked into one module when the executor is made: a module LLJIT
// cannot link (an extern symbol nobody provides) is an InterpError, and so is an entry the module
// lacks; an unknown CPU is a TargetOptionError. Parallel loops run on the texrt thread pool. The
// entry of a graph of kernels runs as `<op>_with_workspace` (ir/CallerWorkspace.h) on one workspace
// the executor allocates when it is made, so its calls (checked and timed) allocate no arena.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/execute/Executor.h"
#include "backends/llvm/LLVMBackend.h"

namespace texc {

/// `funcs`: the entry last, after the functions it calls (the kernels of a graph, docs/graph.md),
/// usually the entry alone. `extern_symbols`: addresses of extern functions the code calls.
std::unique_ptr<Executor> make_jit_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                                            const std::map<std::string, void*>& extern_symbols = {});

/// The same Executor for `entry` compiled elsewhere: `object` is emit_packed_object's bytes (an op
/// compiled by a tuner and shipped to a farm's worker, docs/tuning.md), linked into this process
/// (JitModule::load_object), nothing compiled. An object that does not link, or lacks the entry, is
/// an InterpError.
std::unique_ptr<Executor> make_object_executor(const std::string& object, const LoweredFunc& entry,
                                               const CpuTargetOptions& target);

}  // namespace texc
