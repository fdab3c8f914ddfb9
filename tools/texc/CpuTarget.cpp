#include "tools/texc/CpuTarget.h"

#include "ir/Target.h"

namespace texc {

bool is_cpu_target(const std::string& target) {
  const Target* t = find_target(target);
  return t && (t->kind == TargetKind::X86 || t->kind == TargetKind::Arm);
}

CpuTargetOptions cpu_target_options(const CommandLine& cl) {
  CpuTargetOptions options;
  options.arch = cl.target;
  options.mcpu = cl.mcpu;
  options.mattr = cl.mattr;
  check_cpu_target(options);
  return options;
}

}  // namespace texc
