// hoist_gpu_allocations: moves the buffers plan_storage placed at their use to where a GPU
// allocates them. plan_storage already sizes them for every thread that shares them
// (lower/analysis/Region.h); this pass only moves the Allocate.
//
// Guarantees: a `shared` buffer allocated under a loop bound to threadIdx.* or vthread is
// allocated instead just outside the outermost such loop (once per block, inside the block
// loops); a `global` buffer allocated under any bound loop is allocated at the kernel's root (once
// per kernel); `local` buffers stay where they are (per thread). In a kernel of one block (no
// blockIdx loop), the `global` intermediates become `shared` (a kernel cannot allocate global
// memory; the launch check then bounds their size). Nothing else changes.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt hoist_gpu_allocations(const Stmt& body);

}  // namespace texc
