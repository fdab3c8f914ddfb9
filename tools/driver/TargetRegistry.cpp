#include "tools/driver/TargetRegistry.h"

#include "ir/Diagnostics.h"
#include "ir/Target.h"
#include "tools/driver/targets/Targets.h"

namespace texc {

const std::vector<TargetBehaviour>& registered_targets() {
  static const std::vector<TargetBehaviour> targets = [] {
    std::vector<TargetBehaviour> list = {
        interp_target(), x86_target(), x86_sse_target(), arm_target(), cuda_target(), cuda_interp_target(), vdla_target(),
    };
    // One entry per target of ir/Target.h, in its order, each able to execute.
    const std::vector<Target>& described = all_targets();
    TEXC_CHECK(list.size() == described.size()) << list.size() << " registered targets for " << described.size()
                                                << " described in ir/Target.cpp";
    for (size_t i = 0; i < list.size(); ++i) {
      TEXC_CHECK(list[i].name == described[i].name)
          << "registered target " << i << " is '" << list[i].name << "', ir/Target.cpp's is '" << described[i].name << "'";
      TEXC_CHECK(list[i].make_executor) << "target '" << list[i].name << "' has no executor";
      TEXC_CHECK(!list[i].builtin_intrinsics == described[i].builtin_intrinsics.empty())
          << "target '" << list[i].name << "' names built-in intrinsics in ir/Target.cpp but does not define them, or "
          << "the reverse";
      bool own_output = false;  // an output besides the ones every target shares (Module::write)
      for (const std::string& kind : described[i].outputs)
        own_output = own_output || (kind != "loops" && kind != "graph" && kind != "graph-dot");
      TEXC_CHECK(own_output == bool(list[i].write_output))
          << "target '" << list[i].name << "' has outputs of its own in ir/Target.cpp but no emitter, or the reverse";
    }
    return list;
  }();
  return targets;
}

const TargetBehaviour& target_behaviour(const std::string& name) {
  for (const TargetBehaviour& b : registered_targets())
    if (b.name == name) return b;
  TEXC_CHECK(false) << "no registered target '" << name << "' (the options were checked against ir/Target.h)";
  __builtin_unreachable();
}

std::vector<IntrinsicDef> builtin_intrinsics_of(const CompileOptions& opts) {
  const TargetBehaviour& b = target_behaviour(opts.target);
  return b.builtin_intrinsics ? b.builtin_intrinsics(opts) : std::vector<IntrinsicDef>{};
}

}  // namespace texc
