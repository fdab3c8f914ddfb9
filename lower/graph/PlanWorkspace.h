// plan_workspace: the intermediates of a graph of kernels (GraphOps.h) and the kernels' scratch
// (their heap buffers as arguments, ScratchParameters.h) placed in one workspace arena by liveness,
// with reuse (TVM's graph memory planner, first fit by decreasing size).
//
// Intermediate t lives from the kernel that writes it to the last kernel that reads it,
// [producer, last_reader]; kernel k's scratch region (its scratch arguments one after the other,
// ir/KernelScratch.h) lives during kernel k only, [k, k]. Two blocks whose lives share a kernel
// never overlap in the arena (a kernel's arguments do not alias), others may: a kernel's scratch
// shares bytes with the intermediates not alive during it and with other kernels' scratch. Each is
// placed at an offset aligned to `alignment` bytes, sizes rounded up to it: the largest first,
// each at the lowest offset where it overlaps no placed block whose life meets its own. The
// guarantees: `bytes` >= `lower_bound`, the most bytes live during one kernel (no placement can do
// with less), and `bytes` <= `unshared`, their sum (one buffer each).
#pragma once
#include <cstdint>
#include <vector>

#include "lower/graph/GraphOps.h"

namespace texc {

struct WorkspacePlan {
  std::vector<int64_t> offsets;  // per intermediate of the graph, in its order: bytes into the arena
  std::vector<int64_t> scratch_offsets;  // per kernel: its scratch region's offset, -1 when it has none
  int64_t bytes = 0;             // the arena's size
  int64_t lower_bound = 0;       // the most bytes live during one kernel
  int64_t unshared = 0;          // every intermediate in its own buffer
};

/// The bytes of one element of `b` times its elements.
int64_t buffer_bytes(const Buffer& b);

/// `kernel_scratch`: per kernel of `graph`, the bytes of its scratch region (kernel_scratch_bytes
/// of its lowered function); empty or 0: none.
WorkspacePlan plan_workspace(const GraphOps& graph, const std::vector<int64_t>& kernel_scratch = {},
                             int64_t alignment = 64);

}  // namespace texc
