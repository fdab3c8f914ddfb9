// CpuTargetMachine: an llvm::TargetMachine for a CpuTargetOptions.
//
// x86: the process triple (x86_64 Linux); the host CPU and its features by default, or --mcpu (then
// only that CPU's features) plus --mattr. arm: aarch64-unknown-linux-gnu, CPU "generic" with +neon by
// default, --mcpu cortex-a53 etc. plus --mattr. Position-independent code, so objects link into PIE
// executables. Throws TargetOptionError for an unknown arch or CPU.
#pragma once
#include <memory>
#include <string>

#include "backends/llvm/LLVMBackend.h"

namespace llvm {
class TargetMachine;
}

namespace texc {

/// Registers every LLVM target once per process (safe to call repeatedly, from any thread).
void initialize_llvm_targets();
/// Records that generated code calls the LLVM target intrinsic `name` (a `lower llvm` tensorize),
/// so that a failed instruction selection is reported as a CPU lacking its instruction (exit 1).
void note_target_intrinsic_call(const std::string& name);

struct ResolvedCpuTarget {
  std::string triple, cpu, features;
};
/// The triple, CPU name and feature string that `options` stand for.
ResolvedCpuTarget resolve_cpu_target(const CpuTargetOptions& options);

std::unique_ptr<llvm::TargetMachine> make_cpu_target_machine(const CpuTargetOptions& options);

}  // namespace texc
