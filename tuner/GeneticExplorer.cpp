// The genetic baseline (AutoTVM's GATuner, tuning.md §4.3): a population of the best measured
// points; children by fitness-proportional parent choice, uniform crossover of knob values and
// per-knob mutation (probability 0.1); unvisited children are the batch, random points fill it.
#include <algorithm>

#include "tuner/Explorer.h"

namespace texc {

namespace {

class GeneticExplorer : public Explorer {
 public:
  explicit GeneticExplorer(ExplorerContext c) : c_(c) {}

  std::vector<uint64_t> next_batch(int n) override {
    std::vector<uint64_t> out;
    const Space& space = *c_.space;
    std::mt19937_64& rng = *c_.rng;
    std::vector<std::pair<double, uint64_t>> pop = population();
    double total = 0;
    for (auto& [fit, i] : pop) total += fit;
    auto pick = [&]() -> uint64_t {
      double r = std::uniform_real_distribution<double>(0, total)(rng);
      for (auto& [fit, i] : pop) {
        if ((r -= fit) <= 0) return i;
      }
      return pop.back().second;
    };
    for (int attempt = 0; attempt < 20 * n && int(out.size()) < n && total > 0; ++attempt) {
      uint64_t a = pick(), b = pick(), child = a;
      for (size_t k = 0; k < space.knobs().size(); ++k) {
        uint64_t digit = std::bernoulli_distribution(0.5)(rng) ? space.digit(a, k) : space.digit(b, k);
        if (std::bernoulli_distribution(0.1)(rng))
          digit = std::uniform_int_distribution<uint64_t>(0, std::max<size_t>(space.knobs()[k].values.size(), 1) - 1)(rng);
        child = space.with_digit(child, k, digit);
      }
      child = space.canonical(child);
      if (c_.visited->count(child)) continue;
      c_.visited->insert(child);
      out.push_back(child);
    }
    while (int(out.size()) < n) {
      std::optional<uint64_t> i = c_.random_unvisited();
      if (!i) break;
      c_.visited->insert(*i);
      out.push_back(*i);
    }
    return out;
  }

  void update(const std::vector<Observation>& results) override {
    for (const Observation& o : results) scores_.emplace_back(o.throughput, o.index);
  }

 private:
  /// The best measured points (population of 32, elite first) with positive fitness.
  std::vector<std::pair<double, uint64_t>> population() {
    std::vector<std::pair<double, uint64_t>> sorted = scores_;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    std::vector<std::pair<double, uint64_t>> pop;
    for (auto& s : sorted)
      if (s.first > 0 && pop.size() < 32) pop.push_back(s);
    return pop;
  }
  ExplorerContext c_;
  std::vector<std::pair<double, uint64_t>> scores_;
};

}  // namespace

std::unique_ptr<Explorer> make_genetic_explorer(const ExplorerOptions&, ExplorerContext context) {
  return std::make_unique<GeneticExplorer>(context);
}

}  // namespace texc
