#include "tools/driver/ArmExecutor.h"

#include <cstring>

#include "backends/interp/InterpError.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "tools/driver/EnvironmentError.h"
#include "tuner/CpuRunners.h"

namespace texc {

OpExecutor make_arm_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                             const ArmRunOptions& options, std::shared_ptr<ArmRunResult> timing) {
  // On an aarch64 host the op runs natively: a CPU with features this one lacks would stop on an
  // illegal instruction (under qemu, elsewhere, every feature is emulated).
  if (std::string why = host_cannot_run(target); !why.empty()) throw EnvironmentError(why);
  return [funcs, target, options, timing](std::vector<Tensor*>& args) {
    try {
      *timing = run_on_arm_with_tensors(funcs, funcs.back(), args, target, options);
    } catch (const MissingToolError&) {
      throw;
    } catch (const std::runtime_error& e) {
      throw InterpError(std::string("arm: ") + e.what());
    }
  };
}

}  // namespace texc
