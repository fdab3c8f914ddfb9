#include "tuner/Candidate.h"

#include "backends/vdla/Codegen.h"
#include "ir/Diagnostics.h"
#include "ir/Target.h"
#include "lower/Lower.h"
#include "lower/gpu/MmaIntrinsics.h"

namespace texc {

Candidate lower_candidate(const OpDef& op, const Space& space, uint64_t index, const LowerSettings& settings,
                          bool features_only) {
  Candidate c;
  c.index = index;
  c.config = space.config(index);
  for (const auto& [name, value] : settings.fixed) c.config[name] = value;
  LowerOptions options;
  options.target = settings.target;
  options.arch = settings.arch;  // the launch check's limits (shared memory...) are the --arch's
  options.knobs = c.config;
  options.no_fuse = settings.no_fuse;
  options.cpu_features = settings.cpu_features;
  options.target_properties = settings.target_properties;
  options.builtin_intrinsics = settings.builtin_intrinsics;
  LoweredFunc analysed;
  options.after_pass = [&](const std::string& pass, const LoweredFunc& func) {
    if (pass == "simplify") analysed = func;
  };
  try {
    c.func = lower_op(op, options);
    if (generates_vdla_programs(settings.target) && !features_only) vdla::generate_program(c.func, settings.vdla_config, op.loc);
  } catch (const UserError& e) {
    c.invalid_reason = e.what();
    return c;
  }
  if (!settings.allow_tf32 && input_unit_roundoff(c.func.body) > 0) {
    c.invalid_reason = "its kernel multiplies in TF32 (tensorize with cuda.mma_tf32), a reduced precision; texc tune "
                       "explores such configurations only with --allow-tf32";
    return c;
  }
  c.valid = true;
  c.features = extract_features(analysed.body ? analysed : c.func, settings.caches);
  return c;
}

}  // namespace texc
