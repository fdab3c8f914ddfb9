#include "tools/driver/TuningRunner.h"

#include "tools/driver/EnvironmentError.h"
#include "tools/driver/TargetRegistry.h"

namespace texc {

std::unique_ptr<Runner> make_tuning_runner(const CompileOptions& opts) {
  const TargetBehaviour& behaviour = target_behaviour(opts.target);
  if (behaviour.make_tuning_runner) return behaviour.make_tuning_runner(opts);
  throw EnvironmentError("'texc tune --target " + opts.target + "' is not available yet: this build has no runner for it");
}

}  // namespace texc
