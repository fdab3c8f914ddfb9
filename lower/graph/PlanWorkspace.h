// plan_workspace: the intermediates of a graph of kernels (GraphOps.h) placed in one workspace
// arena by liveness, with reuse (TVM's graph memory planner, first fit by decreasing size).
//
// Intermediate t lives from the kernel that writes it to the last kernel that reads it,
// [producer, last_reader]; two intermediates whose lives share a kernel never overlap in the
// arena (a kernel's inputs and outputs are distinct buffers: the kernels' arguments do not alias),
// others may. Each is placed at an offset aligned to `alignment` bytes, sizes rounded up to it: the
// largest first, each at the lowest offset where it overlaps no placed intermediate whose life
// meets its own. The guarantees: `bytes` >= `lower_bound`, the most bytes live during one kernel
// (no placement can do with less), and `bytes` <= `unshared`, their sum (one buffer each).
#pragma once
#include <cstdint>
#include <vector>

#include "lower/graph/GraphOps.h"

namespace texc {

struct WorkspacePlan {
  std::vector<int64_t> offsets;  // per intermediate of the graph, in its order: bytes into the arena
  int64_t bytes = 0;             // the arena's size
  int64_t lower_bound = 0;       // the most bytes live during one kernel
  int64_t unshared = 0;          // every intermediate in its own buffer
};

/// The bytes of one element of `b` times its elements.
int64_t buffer_bytes(const Buffer& b);

WorkspacePlan plan_workspace(const GraphOps& graph, int64_t alignment = 64);

}  // namespace texc
