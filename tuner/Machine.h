// Machine: what a tuning record says about the machine it was measured on, and how near that
// machine is to the one an op is compiled for.
//
// Knobs tuned on one CPU encode its vector registers (width and count), caches and latencies: a
// 4 x 4-vector register tile that is fastest with 32 zmm registers spills with 16 ymm. So records
// carry their machine -- the CPU's model name, the LLVM triple and CPU name code was generated for,
// and the schedule-relevant features that CPU has -- and --records takes a record only from the same
// machine (same model and LLVM CPU), else from one with the same relevant features (and says so),
// never silently from another: records of other machines are left out unless the user asks for
// them (--records-any-machine).
#pragma once
#include <string>
#include <vector>

namespace texc {

struct Machine {
  std::string name;                   // the CPU's or GPU's model name: "AMD EPYC", "NVIDIA H200"
  std::string triple;                 // "x86_64-unknown-linux-gnu"
  std::string cpu;                    // LLVM's CPU name: "znver5", "x86-64-v3"; a GPU's arch: "sm_90"
  std::vector<std::string> features;  // the relevant_cpu_features it has (LLVM names), sorted

  bool known() const { return !triple.empty() && !cpu.empty(); }
  bool operator==(const Machine& o) const = default;
};

/// The CPU features whose presence changes which knobs are fastest: vector widths and register
/// counts (sse4.2, avx, avx2, avx512f, evex512, neon, sve), fused multiply-add, and the dot-product
/// and half-precision instructions the stdlib's tensorized kernels use. A record keeps these of its
/// CPU; the rest (crypto, bit manipulation, ...) do not move a schedule.
const std::vector<std::string>& relevant_cpu_features();

enum class MachineMatch {
  Same,          // the same model name, triple and LLVM CPU
  SameFeatures,  // another CPU with the same triple and relevant features
  Other,         // a machine with other features (or another triple)
  Unknown,       // the record does not say (written before records named their machine)
};
MachineMatch match_machine(const Machine& measured_on, const Machine& here);

/// "x86-64-v3 (avx avx2 fma f16c sse4.2)"; "an unknown machine" when !known().
std::string describe_machine(const Machine& m);

}  // namespace texc
