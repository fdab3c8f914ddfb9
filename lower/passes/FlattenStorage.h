// flatten_storage: every buffer becomes one-dimensional.
//
// Runs after plan_storage. Each buffer (arguments and allocations) of shape [E0, ..., En-1] is
// replaced by a buffer of the same name, type and scope with shape [E0*...*En-1], and every
// access [i0, ..., in-1] by the row-major offset i0*S0 + ... + in-1 (S = suffix products). The
// function's arguments are replaced by their flat versions and arg_dims records the logical shapes.
#pragma once
#include "ir/Function.h"

namespace texc {

LoweredFunc flatten_storage(const LoweredFunc& f);

}  // namespace texc
