// Explorer: what to measure next. Every explorer proposes distinct, unvisited, canonical indices
// of a Space (Space.h) and learns from the results:
//   xgb     the XGBoost cost model (CostModel.h) refitted on every result so far (plus --transfer
//           records) after each batch, and simulated annealing on its predictions from many start
//           points (SimulatedAnnealing.cpp); a batch is the top distinct candidates plus an ε share
//           of random ones. Random batches until the model has a valid result to learn from.
//   ga      a genetic algorithm on the measured throughputs (GeneticExplorer.cpp): the baseline.
//   random  uniform random unvisited points; grid: every point in index order (GridExplorers.cpp).
// The features of a point come from lowering it (Candidate.h), memoized by the FeatureCache.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "tuner/CostModel.h"
#include "tuner/Space.h"

namespace texc {

/// Features per index (nullopt: the configuration does not lower), computed once.
class FeatureCache {
 public:
  using Compute = std::function<std::optional<std::vector<float>>(uint64_t index)>;
  explicit FeatureCache(Compute compute) : compute_(std::move(compute)) {}
  const std::optional<std::vector<float>>& get(uint64_t index);

 private:
  Compute compute_;
  std::unordered_map<uint64_t, std::optional<std::vector<float>>> cache_;
};

/// One finished trial: its throughput (GFLOP/s; 0 for anything that failed) and features (empty
/// when it did not lower).
struct Observation {
  uint64_t index = 0;
  double throughput = 0;
  std::vector<float> features;
};

struct ExplorerContext {
  const Space* space = nullptr;
  FeatureCache* features = nullptr;
  std::set<uint64_t>* visited = nullptr;  // canonical indices measured or proposed already
  std::mt19937_64* rng = nullptr;
  /// A uniformly random canonical unvisited index, or nullopt when every point is visited.
  std::optional<uint64_t> random_unvisited();
};

class Explorer {
 public:
  virtual ~Explorer() = default;
  /// Up to n indices (canonical, unvisited, distinct); fewer when the space runs out. Marks them
  /// visited.
  virtual std::vector<uint64_t> next_batch(int n) = 0;
  /// The results of the last batch (and, before the first batch, of records being resumed).
  virtual void update(const std::vector<Observation>& results) = 0;
};

struct ExplorerOptions {
  std::string kind = "xgb";            // xgb, ga, random, grid
  CostObjective objective = CostObjective::Regression;
  uint64_t seed = 0;
  double epsilon = 0.1;                // share of random picks in an xgb batch
  /// Records of other workloads for the model (--transfer): features, normalized throughputs and
  /// a group per workload.
  TrainingSet transfer;
};

std::unique_ptr<Explorer> make_explorer(const ExplorerOptions& options, ExplorerContext context);

/// The explorers make_explorer knows, in the order messages list them: xgb (the default), ga,
/// random, grid.
const std::vector<std::string>& explorer_names();
/// "xgb, ga, random or grid": for messages listing the valid values.
std::string explorer_name_list();

std::unique_ptr<Explorer> make_model_explorer(const ExplorerOptions& options, ExplorerContext context);
std::unique_ptr<Explorer> make_genetic_explorer(const ExplorerOptions& options, ExplorerContext context);
std::unique_ptr<Explorer> make_random_explorer(ExplorerContext context);
std::unique_ptr<Explorer> make_grid_explorer(ExplorerContext context);

}  // namespace texc
