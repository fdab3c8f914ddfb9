// CpuRunners: the Runners (Measure.h) of the CPU targets, each running a candidate through the
// Executor `texc run` uses for the target (backends/execute/Executor.h), in the measuring child:
//   x86     JIT-compiled (backends/execute/JitExecutor.h); timed by time_calls (TimeCalls.h: rounds
//           of at least 1 ms of calls, AutoTVM's min_repeat_ms idea, the time of one call each).
//           Or an object compiled elsewhere, linked in the child (a farm's worker, docs/tuning.md),
//           through the same Executor (make_object_executor).
//   interp  the loop interpreter (InterpreterExecutors.h), timed by time_calls as well.
//   arm     cross-compiled and run by the arm runner (backends/execute/ArmExecutor.h), under
//           qemu-aarch64 off aarch64 hosts: times are labelled emulated and are no performance
//           figures (tune arm for the plumbing, not for speed).
#pragma once
#include <map>
#include <memory>
#include <string>

#include "backends/llvm/ArmRunner.h"
#include "backends/llvm/LLVMBackend.h"
#include "tuner/Machine.h"
#include "tuner/Measure.h"
#include "tuner/Records.h"

namespace texc {

/// "AMD EPYC 7B13" from /proc/cpuinfo ("unknown CPU" when it says nothing).
std::string host_cpu_name();

/// The device of x86 records measured on this machine: "x86 / AMD EPYC (znver5)", the CPU's
/// model name and the CPU LLVM generates code for (the host's, unless --mcpu says otherwise).
std::string x86_device(const CpuTargetOptions& target);

/// The Machine (Machine.h) that x86 code for `target` runs on here: this CPU's model name, the
/// triple and LLVM CPU of `target` (the host's, unless --mcpu says otherwise) and the
/// relevant_cpu_features that CPU has (with --mattr).
Machine x86_machine(const CpuTargetOptions& target);

/// The machine of an x86 record written before records named theirs, from its device
/// ("x86 / AMD EPYC (znver5)": that model, and LLVM's CPU znver5 with the features LLVM gives it);
/// unknown when the device names no LLVM CPU, as the first records did.
Machine machine_of_legacy_x86_record(const Record& r);
/// Gives every x86 record of `records` that names no machine the one its device names.
void name_legacy_x86_machines(std::vector<Record>& records);

std::unique_ptr<Runner> make_x86_runner(const CpuTargetOptions& target, std::map<std::string, void*> extern_symbols = {});
/// The x86 runner for an op already compiled (emit_packed_object's bytes, shipped by `texc tune
/// --compile-on tuner`): run() links the object (JitModule::load_object) and calls the op named as
/// the candidate's func, timed as the x86 runner times; nothing is compiled.
std::unique_ptr<Runner> make_x86_object_runner(const std::string& object, const CpuTargetOptions& target);
std::unique_ptr<Runner> make_interp_runner();
std::unique_ptr<Runner> make_arm_runner(const CpuTargetOptions& target, const ArmRunOptions& options);
/// The arm runner for an op already compiled (arm_program_parts, shipped by `texc tune --compile-on
/// tuner`): run() links the object with its driver and runs it (under qemu off aarch64 hosts); the
/// op's arguments are the inputs then the outputs, of the sizes the parts say.
std::unique_ptr<Runner> make_arm_object_runner(const ArmProgramParts& parts, const ArmRunOptions& options);

}  // namespace texc
