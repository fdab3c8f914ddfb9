#include "tools/texc/CpuTarget.h"

namespace texc {

bool is_cpu_target(const std::string& target) { return target == "x86" || target == "arm"; }

CpuTargetOptions cpu_target_options(const CommandLine& cl) {
  CpuTargetOptions options;
  options.arch = cl.target;
  options.mcpu = cl.mcpu;
  options.mattr = cl.mattr;
  check_cpu_target(options);
  return options;
}

}  // namespace texc
