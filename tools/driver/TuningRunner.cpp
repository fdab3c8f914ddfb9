#include "tools/driver/TuningRunner.h"

#include <filesystem>

#include "backends/llvm/ArmRunner.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/CudaRunner.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/VdlaExecutor.h"
#include "tuner/CpuRunners.h"
#include "tuner/VdlaRunner.h"

namespace texc {

std::unique_ptr<Runner> make_tuning_runner(const CompileOptions& opts) {
  if (opts.target == "x86") return make_x86_runner(cpu_target_options(opts));
  if (opts.target == "interp") return make_interp_runner();
  if (opts.target == "arm") {
    ArmRunOptions options;
    check_arm_tools(options);
    return make_arm_runner(cpu_target_options(opts), options);
  }
  if (opts.target == "vdla")
    return make_vdla_runner(vdla_config_of(opts), opts.vdla_config.empty() ? "default" : std::filesystem::path(opts.vdla_config).filename().string());
  if (opts.target == "cuda") return make_cuda_runner(opts.arch);
  throw EnvironmentError("'texc tune --target " + opts.target + "' is not available yet: this build has no runner for it");
}

}  // namespace texc
