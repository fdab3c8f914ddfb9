#include "tools/driver/CpuTarget.h"

#include "backends/llvm/CpuTargetMachine.h"
#include "ir/Diagnostics.h"
#include "ir/Target.h"

namespace texc {

CpuTargetOptions cpu_target_options(const CompileOptions& opts) {
  const Target* target = find_target(opts.target);
  CpuTargetOptions options;
  options.arch = llvm_cpu_arch_of(opts.target);
  options.mcpu = opts.mcpu.empty() && target ? target->default_mcpu : opts.mcpu;
  options.mattr = opts.mattr;
  check_cpu_target(options);
  return options;
}

CpuFeatureQuery cpu_feature_query(const CompileOptions& opts, const OpDef& op) {
  CpuTargetOptions options = cpu_target_options(opts);
  for (const auto& [name, intrin] : op.intrinsics) {
    if (intrin.lower_kind != "llvm") continue;
    std::string owner = intrin.symbol.rfind("llvm.x86.", 0) == 0 ? "x86" : "arm";
    if (owner != options.arch) continue;
    for (const std::string& feature : intrin.requires_features)
      if (std::optional<std::string> closest = unknown_cpu_feature(options.arch, feature))
        throw_error(DiagId::UnknownCpuFeature, intrin.requires_loc, opts.target, feature, *closest);
  }
  CpuFeatureQuery query;
  query.description = opts.target;
  if (!options.mcpu.empty()) query.description += " --mcpu " + options.mcpu;
  if (!options.mattr.empty()) query.description += " --mattr " + options.mattr;
  if (options.mcpu.empty() && options.mattr.empty())  // x86 compiles for the host's CPU, arm for a generic one
    query.description += " (" + std::string(options.arch == "x86" ? "the host CPU, " : "CPU ") + resolve_cpu_target(options).cpu + ")";
  query.missing = [options](const std::vector<std::string>& features) { return missing_cpu_features(options, features); };
  return query;
}

}  // namespace texc
