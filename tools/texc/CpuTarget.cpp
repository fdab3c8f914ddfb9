#include "tools/texc/CpuTarget.h"

#include "backends/llvm/CpuTargetMachine.h"
#include "ir/Diagnostics.h"
#include "ir/Target.h"

namespace texc {

CpuTargetOptions cpu_target_options(const CommandLine& cl) {
  CpuTargetOptions options;
  options.arch = cl.target;
  options.mcpu = cl.mcpu;
  options.mattr = cl.mattr;
  check_cpu_target(options);
  return options;
}

CpuFeatureQuery cpu_feature_query(const CommandLine& cl, const OpDef& op) {
  CpuTargetOptions options = cpu_target_options(cl);
  for (const auto& [name, intrin] : op.intrinsics) {
    if (intrin.lower_kind != "llvm") continue;
    std::string owner = intrin.symbol.rfind("llvm.x86.", 0) == 0 ? "x86" : "arm";
    if (owner != cl.target) continue;
    for (const std::string& feature : intrin.requires_features)
      if (std::optional<std::string> closest = unknown_cpu_feature(cl.target, feature))
        throw_error(DiagId::UnknownCpuFeature, intrin.requires_loc, cl.target, feature, *closest);
  }
  CpuFeatureQuery query;
  query.description = cl.target;
  if (!cl.mcpu.empty()) query.description += " --mcpu " + cl.mcpu;
  if (!cl.mattr.empty()) query.description += " --mattr " + cl.mattr;
  if (cl.mcpu.empty() && cl.mattr.empty())
    query.description += " (" + std::string(cl.target == "x86" ? "the host CPU, " : "CPU ") + resolve_cpu_target(options).cpu + ")";
  query.missing = [options](const std::vector<std::string>& features) { return missing_cpu_features(options, features); };
  return query;
}

}  // namespace texc
