#include "lower/graph/PlanWorkspace.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "ir/Diagnostics.h"

namespace texc {

int64_t buffer_bytes(const Buffer& b) {
  int64_t n = b->dtype.bytes();
  for (const Expr& e : b->shape) {
    int64_t extent = 0;
    TEXC_CHECK(is_const_int(e, &extent)) << "buffer '" << b->name << "' of a graph has a non-constant shape";
    n *= extent;
  }
  return n;
}

WorkspacePlan plan_workspace(const GraphOps& graph, const std::vector<int64_t>& kernel_scratch, int64_t alignment) {
  // The blocks: the intermediates, then each kernel's scratch region, with their lives.
  struct Block {
    int64_t size = 0;
    size_t first = 0, last = 0;
  };
  std::vector<Block> blocks;
  for (const GraphIntermediate& t : graph.intermediates) blocks.push_back({buffer_bytes(t.buffer), t.producer, t.last_reader});
  std::vector<size_t> block_of_kernel(graph.kernels.size(), SIZE_MAX);
  for (size_t k = 0; k < kernel_scratch.size() && k < graph.kernels.size(); ++k)
    if (kernel_scratch[k] > 0) {
      block_of_kernel[k] = blocks.size();
      blocks.push_back({kernel_scratch[k], k, k});
    }
  WorkspacePlan plan;
  for (Block& b : blocks) {
    b.size = (b.size + alignment - 1) / alignment * alignment;
    plan.unshared += b.size;
  }
  auto meet = [&](size_t a, size_t b) { return blocks[a].first <= blocks[b].last && blocks[b].first <= blocks[a].last; };
  for (size_t k = 0; k < graph.kernels.size(); ++k) {
    int64_t live = 0;
    for (const Block& b : blocks)
      if (b.first <= k && k <= b.last) live += b.size;
    plan.lower_bound = std::max(plan.lower_bound, live);
  }
  std::vector<size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return blocks[a].size > blocks[b].size; });
  std::vector<int64_t> offset_of(blocks.size(), -1);
  std::vector<size_t> placed;
  for (size_t i : order) {
    std::vector<std::pair<int64_t, int64_t>> taken;  // [begin, end) of placed blocks alive with i
    for (size_t j : placed)
      if (meet(i, j)) taken.push_back({offset_of[j], offset_of[j] + blocks[j].size});
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : taken) {
      if (offset + blocks[i].size <= begin) break;
      offset = std::max(offset, end);
    }
    offset_of[i] = offset;
    plan.bytes = std::max(plan.bytes, offset + blocks[i].size);
    placed.push_back(i);
  }
  plan.offsets.assign(offset_of.begin(), offset_of.begin() + long(graph.intermediates.size()));
  for (size_t k = 0; k < graph.kernels.size(); ++k)
    plan.scratch_offsets.push_back(block_of_kernel[k] == SIZE_MAX ? -1 : offset_of[block_of_kernel[k]]);
  return plan;
}

}  // namespace texc
