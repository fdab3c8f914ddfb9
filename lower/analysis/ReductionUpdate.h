// The shape of a reduction's update after lower_blocks: `B[idx] = B[idx] op x`, op one of the
// combiners (+, *, max, min), the buffer's own element on either side.
#pragma once
#include <optional>
#include <utility>

#include "ir/IR.h"

namespace texc {

/// The reduction's kind and x of `B[idx] = B[idx] op x` (either operand order), or nullopt.
std::optional<std::pair<ReduceKind, Expr>> match_reduction_update(const Store* s);

}  // namespace texc
