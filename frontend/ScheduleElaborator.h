// Schedule blocks: AST -> ir::ScheduleBlock (ir/Schedule.h), checked for names only.
//
// Checked here: the target, primitive names ("did you mean"), argument counts and keywords,
// stage names (the op's stages, including those expanded from calls, and stages created by
// cache_read/cache_write earlier in the block), loop names (`S.x` must be an axis or reduction
// variable of stage S; a bare name must be bound earlier in the block by a primitive's results),
// knob references, memory scopes, thread tags and intrinsic names. Knobs get one Var each;
// `factors(N)` is expanded to the divisors of N: first the default, the largest divisor up to 32,
// then the others in increasing order; params and sizes in integer
// arguments are replaced by their values. Whether a primitive can apply is lower/schedule's job.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "frontend/Ast.h"
#include "frontend/Scope.h"
#include "ir/Schedule.h"

namespace texc {

struct ScheduleContext {
  struct StageLoops {
    std::string stage;
    std::vector<std::string> loops;  // spatial axes, then reduction variables
  };
  std::vector<StageLoops> stages;
  std::set<std::string> inputs;      // input tensors (cache_read may read them)
  std::set<std::string> intrinsics;  // declared intrinsics (tensorize)
  const Scope* sizes = nullptr;      // params, attributes, dimension variables, sizes
};

struct CheckedSchedule {
  ScheduleBlock block;
  std::set<std::string> stages_named;  // stages of the op the block refers to
};

CheckedSchedule elaborate_schedule(const ast::ScheduleBlock& block, const ScheduleContext& context);

}  // namespace texc
