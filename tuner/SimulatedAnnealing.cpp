// The model-based explorer (AutoTVM's XGBTuner with its SimulatedAnnealingOptimizer, tuning.md
// §3.1, §4.1–4.2): after every batch the cost model is refitted from scratch on every result so
// far (labels: throughput / best, failures 0; --transfer records as other groups, their weight
// halving every 64 own results). Then simulated annealing on the predictions: persistent chains
// (up to 64, restarted from the best measured points and random ones), each step moves every
// chain to a neighbour — one knob set to an adjacent value or re-drawn — accepted with probability
// exp((s' - s) / T), T cooling linearly from 1 to 0; every point seen is offered to a heap of the
// best unvisited predictions; stop after 80 steps or 20 steps without a heap change. The batch is
// chosen from the heap's best 2·b (b the model's share of the batch) for diversity (AutoTVM's
// submodular pick, tuning.md §4.2): greedily, the candidate that adds the most knob values not yet
// in the batch, the better prediction on a tie; an ε share is random unvisited points.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "tuner/Explorer.h"

namespace texc {

namespace {

class ModelExplorer : public Explorer {
 public:
  ModelExplorer(const ExplorerOptions& options, ExplorerContext c)
      : c_(c), options_(options), model_(options.objective, options.seed) {
    if (!options_.transfer.features.empty()) {
      TrainingSet data = training_set();
      model_.fit(data);
    }
  }

  std::vector<uint64_t> next_batch(int n) override {
    std::vector<uint64_t> out;
    if (model_.trained()) {
      int from_model = n - int(std::floor(options_.epsilon * n + (n >= 4 ? 0.5 : 0.0)));
      std::vector<uint64_t> ranked = anneal(kDiversity * from_model);
      if (ranked.size() > size_t(kDiversity * from_model)) ranked.resize(size_t(kDiversity * from_model));
      for (uint64_t i : diverse_pick(std::move(ranked), from_model)) {
        c_.visited->insert(i);
        out.push_back(i);
      }
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
    for (const Observation& o : results) own_.push_back(o);
    bool any_valid = std::any_of(own_.begin(), own_.end(), [](const Observation& o) { return o.throughput > 0; });
    if (any_valid || !options_.transfer.features.empty()) model_.fit(training_set());
  }

 private:
  TrainingSet training_set() const {
    TrainingSet data = options_.transfer;
    int own_group = 0;
    for (int g : data.groups) own_group = std::max(own_group, g + 1);
    float decay = std::max(0.05f, float(std::pow(2.0, -double(own_.size()) / 64.0)));
    data.group_weight.assign(own_group + 1, decay);
    data.group_weight[own_group] = 1.0f;
    double best = 0;
    for (const Observation& o : own_) best = std::max(best, o.throughput);
    for (const Observation& o : own_) {
      if (o.features.empty()) continue;  // did not lower: never proposed again anyway
      data.features.push_back(o.features);
      data.labels.push_back(best > 0 ? float(o.throughput / best) : 0.0f);
      data.groups.push_back(own_group);
    }
    return data;
  }

  double score(uint64_t index, std::map<uint64_t, double>& memo) {
    auto it = memo.find(index);
    if (it != memo.end()) return it->second;
    const std::optional<std::vector<float>>& f = c_.features->get(index);
    double s = f ? double(model_.predict({*f})[0]) : -std::numeric_limits<double>::infinity();
    memo[index] = s;
    return s;
  }

  /// Up to n of the candidates (best prediction first), greedily the one that adds the most
  /// (knob, value) pairs not yet covered by those taken, the earlier on a tie: a batch that spreads
  /// over the knobs instead of n neighbours of one point.
  std::vector<uint64_t> diverse_pick(std::vector<uint64_t> candidates, int n) const {
    const Space& space = *c_.space;
    std::set<std::pair<size_t, uint64_t>> covered;
    std::vector<uint64_t> out;
    while (int(out.size()) < n && !candidates.empty()) {
      size_t best = 0;
      int best_gain = -1;
      for (size_t c = 0; c < candidates.size(); ++c) {
        int gain = 0;
        for (size_t k = 0; k < space.knobs().size(); ++k) gain += !covered.count({k, space.digit(candidates[c], k)});
        if (gain > best_gain) best_gain = gain, best = c;
      }
      for (size_t k = 0; k < space.knobs().size(); ++k) covered.insert({k, space.digit(candidates[best], k)});
      out.push_back(candidates[best]);
      candidates.erase(candidates.begin() + long(best));
    }
    return out;
  }

  uint64_t neighbour(uint64_t index) {
    const Space& space = *c_.space;
    std::mt19937_64& rng = *c_.rng;
    for (int tries = 0; tries < 16; ++tries) {
      size_t k = std::uniform_int_distribution<size_t>(0, space.knobs().size() - 1)(rng);
      uint64_t count = std::max<size_t>(space.knobs()[k].values.size(), 1);
      if (count < 2) continue;
      uint64_t d = space.digit(index, k), nd;
      if (std::bernoulli_distribution(0.5)(rng)) {
        nd = std::bernoulli_distribution(0.5)(rng) ? (d + 1) % count : (d + count - 1) % count;
      } else {
        nd = std::uniform_int_distribution<uint64_t>(0, count - 1)(rng);
      }
      uint64_t next = space.canonical(space.with_digit(index, k, nd));
      if (next != index) return next;
    }
    return index;
  }

  /// The best unvisited points by prediction, best first.
  std::vector<uint64_t> anneal(int want) {
    if (c_.space->knobs().empty() || want <= 0) return {};
    std::map<uint64_t, double> memo;  // predictions of this round (the model changed)
    const int chains_wanted = int(std::min<uint64_t>(64, c_.space->size()));
    // Start points: the best measured ones, then the previous chains, then random points.
    std::vector<std::pair<double, uint64_t>> measured;
    for (const Observation& o : own_) measured.emplace_back(o.throughput, o.index);
    std::sort(measured.begin(), measured.end(), std::greater<>());
    std::vector<uint64_t> points;
    for (size_t i = 0; i < measured.size() && int(points.size()) < chains_wanted / 4; ++i)
      if (measured[i].first > 0) points.push_back(measured[i].second);
    for (uint64_t p : chains_)
      if (int(points.size()) < chains_wanted) points.push_back(p);
    while (int(points.size()) < chains_wanted) {
      points.push_back(c_.space->canonical(std::uniform_int_distribution<uint64_t>(0, c_.space->size() - 1)(*c_.rng)));
    }
    std::vector<double> scores;
    for (uint64_t p : points) scores.push_back(score(p, memo));

    std::map<uint64_t, double> heap;  // the best `keep` unvisited points seen
    size_t keep = size_t(want) * 2;
    auto offer = [&](uint64_t i, double s) {
      if (c_.visited->count(i) || heap.count(i) || !std::isfinite(s)) return false;
      if (heap.size() >= keep) {
        auto worst = std::min_element(heap.begin(), heap.end(), [](auto& a, auto& b) { return a.second < b.second; });
        if (worst->second >= s) return false;
        heap.erase(worst);
      }
      heap[i] = s;
      return true;
    };
    for (size_t c = 0; c < points.size(); ++c) offer(points[c], scores[c]);
    const int steps = 80;
    int quiet = 0;
    for (int step = 0; step < steps && quiet < 20; ++step) {
      double t = 1.0 - double(step) / steps;
      bool changed = false;
      for (size_t c = 0; c < points.size(); ++c) {
        uint64_t next = neighbour(points[c]);
        double s = score(next, memo);
        changed |= offer(next, s);
        double delta = s - scores[c];
        if (std::isfinite(s) && (delta >= 0 || std::uniform_real_distribution<double>(0, 1)(*c_.rng) <
                                                   std::exp(delta / (t + 1e-5)))) {
          points[c] = next;
          scores[c] = s;
        }
      }
      quiet = changed ? 0 : quiet + 1;
    }
    chains_ = points;
    std::vector<std::pair<double, uint64_t>> best;
    for (auto& [i, s] : heap) best.emplace_back(s, i);
    std::sort(best.begin(), best.end(), std::greater<>());
    std::vector<uint64_t> out;
    for (auto& [s, i] : best) out.push_back(i);
    return out;
  }

  static constexpr int kDiversity = 2;  // candidates from the annealing per model pick in a batch

  ExplorerContext c_;
  ExplorerOptions options_;
  CostModel model_;
  std::vector<Observation> own_;
  std::vector<uint64_t> chains_;
};

}  // namespace

std::unique_ptr<Explorer> make_model_explorer(const ExplorerOptions& options, ExplorerContext context) {
  return std::make_unique<ModelExplorer>(options, context);
}

}  // namespace texc
