// Bounds of index expressions over the iterations of a loop nest, shared by bound inference
// (lower/schedule/StageNest.cpp) and storage planning (lower/passes/PlanStorage.cpp).
//
// constant_upper_bound(e, loops) is a constant that e never exceeds while the loops (outermost
// first) run over their ranges: exact, by evaluating e at every iteration, when e depends on few
// iterations (at most 65536 combinations of the loops it mentions, each with constant bounds), else
// the interval bound (ir/Bounds.h). Region extents such as `(fo*16 + 15)/29 - fo*16/29 + 1` of a
// split of a fused loop need the exact form: interval arithmetic loses the correlation.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/Bounds.h"
#include "ir/IR.h"

namespace texc {

/// The interval of each loop's variable, each loop's bounds evaluated with the loops outside it.
VarIntervals loop_intervals(const std::vector<const For*>& loops);
/// A constant upper bound of e over the loops' iterations, or nullopt if there is none.
std::optional<int64_t> constant_upper_bound(const Expr& e, const std::vector<const For*>& loops);

}  // namespace texc
