// CpuTargetMachine: an llvm::TargetMachine for a CpuTargetOptions.
//
// x86: the process triple (x86_64 Linux); the host CPU and its features by default, or --mcpu (then
// only that CPU's features) plus --mattr. arm: aarch64-unknown-linux-gnu, CPU "generic" with +neon by
// default, --mcpu cortex-a53 etc. plus --mattr. Position-independent code, so objects link into PIE
// executables. Throws TargetOptionError for an unknown arch or CPU, an unknown --mattr feature, or
// a choice of features LLVM cannot generate texc's code for (x86 without SSE2; AVX-512 limited to
// 256 bits without avx512vl). AVX-512 on x86 gets 512-bit registers (+evex512) unless --mattr says
// -evex512, as with clang: LLVM 19 gives them to AVX-512 CPUs but not to `--mcpu x86-64-v3 --mattr +avx512f`.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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
/// The triple, CPU name and feature string that `options` stand for, checked as above.
ResolvedCpuTarget resolve_cpu_target(const CpuTargetOptions& options);

/// Null when LLVM knows the feature `name` ("avx512vnni", "dotprod") for `arch` (x86 or arm), else
/// the closest names it knows, as "'a', 'b' or 'c'".
std::optional<std::string> unknown_cpu_feature(const std::string& arch, const std::string& name);
/// The features among `features` (LLVM names) that the CPU of `options` lacks, in order.
std::vector<std::string> missing_cpu_features(const CpuTargetOptions& options, const std::vector<std::string>& features);

/// The features (LLVM names, sorted) that the CPU of `options` has and a host with the feature map
/// `host` (name -> present, as llvm::sys::getHostCPUFeatures reports them) lacks.
std::vector<std::string> features_missing_on_host(const CpuTargetOptions& options,
                                                  const std::map<std::string, bool>& host);
/// "" when code compiled for `options` can run on this host (x86 on an x86 host, arm on an aarch64
/// host: every feature of the chosen CPU that LLVM detects on hosts is there; arm elsewhere runs
/// under qemu: always), else the message that says which features the host CPU lacks.
std::string host_cannot_run(const CpuTargetOptions& options);

std::unique_ptr<llvm::TargetMachine> make_cpu_target_machine(const CpuTargetOptions& options);

}  // namespace texc
