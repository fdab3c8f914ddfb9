// Machine: a record's machine and how near it is to another (Machine.h).
#include "tuner/Machine.h"

namespace texc {

const std::vector<std::string>& relevant_cpu_features() {
  static const std::vector<std::string> features = {
      // x86: vector width and register count, FMA, the int8 and bf16 dot products
      "sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512vnni",
      "avx512bf16", "avx512fp16", "avxvnni", "evex512", "amx-tile",
      // AArch64: NEON, SVE, the int8 dot products and half precision
      "neon", "sve", "sve2", "dotprod", "i8mm", "fullfp16", "bf16"};
  return features;
}

MachineMatch match_machine(const Machine& measured_on, const Machine& here) {
  if (!measured_on.known()) return MachineMatch::Unknown;
  if (measured_on.triple != here.triple) return MachineMatch::Other;
  if (measured_on.name == here.name && measured_on.cpu == here.cpu) return MachineMatch::Same;
  if (measured_on.features == here.features) return MachineMatch::SameFeatures;
  return MachineMatch::Other;
}

std::string describe_machine(const Machine& m) {
  if (!m.known()) return "an unknown machine";
  std::string out = m.cpu + " (";
  for (size_t i = 0; i < m.features.size(); ++i) out += (i ? " " : "") + m.features[i];
  return out + ")";
}

}  // namespace texc
