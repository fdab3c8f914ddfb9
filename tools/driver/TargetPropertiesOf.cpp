#include "tools/driver/TargetPropertiesOf.h"

#include "backends/llvm/CpuTargetMachine.h"
#include "ir/Target.h"
#include "lower/analysis/CacheInfo.h"
#include "tools/driver/CpuTarget.h"

namespace texc {

TargetProperties target_properties_of(const CompileOptions& opts) {
  CpuTargetOptions options;
  std::string arch;
  if (is_llvm_cpu_target(opts.target)) {
    options = cpu_target_options(opts);
    arch = options.arch;
  } else {
#if defined(__aarch64__)
    arch = "arm";
#else
    arch = "x86";
#endif
    options.arch = arch;  // the host CPU (x86) or generic NEON (arm)
  }
  TargetProperties p;
  p.description = arch;
  if (!options.mcpu.empty()) p.description += " --mcpu " + options.mcpu;
  if (!options.mattr.empty()) p.description += " --mattr " + options.mattr;
  if (options.mcpu.empty() && options.mattr.empty())
    p.description += " (" + std::string(arch == "x86" ? "the host CPU, " : "CPU ") + resolve_cpu_target(options).cpu + ")";
  auto has = [options](const std::string& f) { return missing_cpu_features(options, {f}).empty(); };
  if (arch == "x86") {
    bool avx512 = has("avx512f");
    bool evex512 = options.mattr.find("-evex512") == std::string::npos;  // CpuTargetMachine.h: AVX-512 gets +evex512
    p.vector_bits = avx512 && evex512 ? 512 : has("avx") ? 256 : 128;
    p.vector_registers = avx512 ? 32 : 16;
  } else {
    p.vector_bits = 128;
    p.vector_registers = 32;
  }
  // Caches: the host's when the code is for the host's CPU (/sys, lower/analysis/CacheInfo.h), else
  // the baseline's: LLVM's CPU tables do not give a CPU's cache sizes.
  bool host_cpu = options.mcpu.empty() || options.mcpu == "native" || options.mcpu == "host";
#if defined(__aarch64__)
  bool host_arch = arch == "arm";
#else
  bool host_arch = arch == "x86";
#endif
  if (host_cpu && host_arch) {
    CacheSizes host = CacheSizes::host();
    p.l1_bytes = host.l1;
    p.l2_bytes = host.l2;
  }
  p.has = [options, arch](const std::string& feature, std::string* message) -> std::optional<bool> {
    if (std::optional<std::string> closest = unknown_cpu_feature(arch, feature)) {
      // A feature of the other architecture ("fma" asked on arm, "dotprod" on x86) is simply absent,
      // so that one `schedule cpu` serves both; a name neither knows is a mistake.
      if (!unknown_cpu_feature(arch == "x86" ? "arm" : "x86", feature)) return false;
      if (message) *message = *closest;
      return std::nullopt;
    }
    return missing_cpu_features(options, {feature}).empty();
  };
  return p;
}

}  // namespace texc
