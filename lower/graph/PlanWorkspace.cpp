#include "lower/graph/PlanWorkspace.h"

#include <algorithm>
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

WorkspacePlan plan_workspace(const GraphOps& graph, int64_t alignment) {
  const std::vector<GraphIntermediate>& ts = graph.intermediates;
  WorkspacePlan plan;
  std::vector<int64_t> size(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    size[i] = (buffer_bytes(ts[i].buffer) + alignment - 1) / alignment * alignment;
    plan.unshared += size[i];
  }
  auto meet = [&](size_t a, size_t b) { return ts[a].producer <= ts[b].last_reader && ts[b].producer <= ts[a].last_reader; };
  for (size_t k = 0; k < graph.kernels.size(); ++k) {
    int64_t live = 0;
    for (size_t i = 0; i < ts.size(); ++i)
      if (ts[i].producer <= k && k <= ts[i].last_reader) live += size[i];
    plan.lower_bound = std::max(plan.lower_bound, live);
  }
  std::vector<size_t> order(ts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size[a] > size[b]; });
  plan.offsets.assign(ts.size(), -1);
  std::vector<size_t> placed;
  for (size_t i : order) {
    std::vector<std::pair<int64_t, int64_t>> taken;  // [begin, end) of placed intermediates alive with i
    for (size_t j : placed)
      if (meet(i, j)) taken.push_back({plan.offsets[j], plan.offsets[j] + size[j]});
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : taken) {
      if (offset + size[i] <= begin) break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.bytes = std::max(plan.bytes, offset + size[i]);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace texc
