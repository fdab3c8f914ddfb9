#include "tuner/Explorer.h"

#include <stdexcept>

namespace texc {

const std::optional<std::vector<float>>& FeatureCache::get(uint64_t index) {
  auto it = cache_.find(index);
  if (it != cache_.end()) return it->second;
  return cache_.emplace(index, compute_(index)).first->second;
}

std::optional<uint64_t> ExplorerContext::random_unvisited() {
  uint64_t size = space->size();
  for (int tries = 0; tries < 256; ++tries) {
    uint64_t i = space->canonical(std::uniform_int_distribution<uint64_t>(0, size - 1)(*rng));
    if (!visited->count(i)) return i;
  }
  if (size > (uint64_t(1) << 22)) return std::nullopt;  // too large to scan: call it exhausted
  std::vector<uint64_t> left;
  for (uint64_t i = 0; i < size; ++i)
    if (space->canonical(i) == i && !visited->count(i)) left.push_back(i);
  if (left.empty()) return std::nullopt;
  return left[std::uniform_int_distribution<size_t>(0, left.size() - 1)(*rng)];
}

std::unique_ptr<Explorer> make_explorer(const ExplorerOptions& options, ExplorerContext context) {
  if (options.kind == "xgb") return make_model_explorer(options, context);
  if (options.kind == "ga") return make_genetic_explorer(options, context);
  if (options.kind == "random") return make_random_explorer(context);
  if (options.kind == "grid") return make_grid_explorer(context);
  throw std::invalid_argument("unknown tuner '" + options.kind + "' (expected " + explorer_name_list() + ")");
}

const std::vector<std::string>& explorer_names() {
  static const std::vector<std::string> names = {"xgb", "ga", "random", "grid"};
  return names;
}

std::string explorer_name_list() {
  const std::vector<std::string>& n = explorer_names();
  std::string out;
  for (size_t i = 0; i < n.size(); ++i) out += (i == 0 ? "" : i + 1 == n.size() ? " or " : ", ") + n[i];
  return out;
}

}  // namespace texc
