// The region of a buffer that accesses touch during one iteration of a loop: bound inference for
// compute_at and auto-fusion, and the allocation size of storage planning.
//
// Given accesses (lower/analysis/BufferAccess.h) that all lie inside the loops `outer` (outermost
// first), the region is, per dimension, the union over the accesses of their index bounds with the
// loops inside `outer` relaxed to their whole ranges and the loops of `outer` kept symbolic. A
// dimension whose bounds cannot be expressed in the outer loops' variables, or whose extent is not
// bounded by a constant, or reaches the buffer's extent, is the whole dimension.
//
// Relaxation over threads (TVM's NeedRelax): memory is shared by the threads of a scope, so a
// loop of `outer` bound to a thread index is relaxed too when the buffer's memory is visible to all
// the threads it ranges over: for `global`, every blockIdx/threadIdx/vthread loop; for `shared`,
// the threadIdx and vthread loops (a block's threads share it; blocks do not); for `local` (and
// the vdla scopes), none (each thread has its own). So a `shared` tile attached inside
// `threadIdx.x` is sized for the whole block, not for one thread.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/IR.h"
#include "lower/analysis/BufferAccess.h"

namespace texc {

/// A box of a buffer: [min[d], min[d] + extent[d]) per dimension.
struct Region {
  std::vector<Expr> min;
  std::vector<int64_t> extent;
};

/// True if a loop of the attach path bound to `thread_tag` must be relaxed for a buffer in
/// memory scope `scope` (see above). Serial, parallel, vectorized and unrolled loops never are.
bool relaxes_over_thread(MemScope scope, const std::string& thread_tag);

/// The region of `buffer` the accesses touch during one iteration of the innermost loop of
/// `outer` (every access must lie inside all of `outer`).
Region infer_region(const std::vector<BufferAccess>& accesses, const std::vector<const For*>& outer,
                    const Buffer& buffer);

}  // namespace texc
