// The model-free baselines: random (uniform unvisited points) and grid (every canonical point in
// index order, first-declared knob fastest).
#include "tuner/Explorer.h"

namespace texc {

namespace {

class RandomExplorer : public Explorer {
 public:
  explicit RandomExplorer(ExplorerContext c) : c_(c) {}
  std::vector<uint64_t> next_batch(int n) override {
    std::vector<uint64_t> out;
    while (int(out.size()) < n) {
      std::optional<uint64_t> i = c_.random_unvisited();
      if (!i) break;
      c_.visited->insert(*i);
      out.push_back(*i);
    }
    return out;
  }
  void update(const std::vector<Observation>&) override {}

 private:
  ExplorerContext c_;
};

class GridExplorer : public Explorer {
 public:
  explicit GridExplorer(ExplorerContext c) : c_(c) {}
  std::vector<uint64_t> next_batch(int n) override {
    std::vector<uint64_t> out;
    for (; next_ < c_.space->size() && int(out.size()) < n; ++next_) {
      if (c_.space->canonical(next_) != next_ || c_.visited->count(next_)) continue;
      c_.visited->insert(next_);
      out.push_back(next_);
    }
    return out;
  }
  void update(const std::vector<Observation>&) override {}

 private:
  ExplorerContext c_;
  uint64_t next_ = 0;
};

}  // namespace

std::unique_ptr<Explorer> make_random_explorer(ExplorerContext context) { return std::make_unique<RandomExplorer>(context); }
std::unique_ptr<Explorer> make_grid_explorer(ExplorerContext context) { return std::make_unique<GridExplorer>(context); }

}  // namespace texc
