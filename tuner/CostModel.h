// CostModel: XGBoost (through its C API) predicting how good a candidate is from its features
// (Features.h). Only the order of the predictions matters: the explorer maximizes them.
//
// Labels are throughputs normalized within their workload (best seen = 1; a failed or wrong
// candidate 0), as AutoTVM does. Each workload (op, shapes, target) is one query group: the
// ranking objective (`rank:pairwise`) compares candidates only within their group, so records of
// other shapes or ops (--transfer) teach the model orderings without mixing their scales. The
// regression objective (`reg:squarederror`) fits the normalized labels directly. fit() trains
// from scratch each time (the tuner refits after every batch): depth-3 trees, eta 0.3, a fixed
// number of rounds, one thread (tuning.md §3.1's parameters).
//
// Groups other than `own_group` can be given a weight < 1 (the transfer data's weight decays as
// the tuned op's own measurements accumulate). The tuner uses regression by default: it picks
// better top candidates on real records (docs/tuning.md, "Rank or regression").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace texc {

enum class CostObjective { Rank, Regression };

/// "rank" or "reg".
const char* objective_name(CostObjective objective);

struct TrainingSet {
  std::vector<std::vector<float>> features;
  std::vector<float> labels;
  std::vector<int> groups;        // one group id per row
  std::vector<float> group_weight;  // indexed by group id; missing = 1
};

class CostModel {
 public:
  CostModel(CostObjective objective, uint64_t seed, int rounds = 60);
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  /// Trains a new booster on `data` (replacing the previous one). Throws std::runtime_error with
  /// XGBoost's message if XGBoost fails.
  void fit(const TrainingSet& data);
  bool trained() const { return booster_ != nullptr; }
  /// One score per row (higher is better); all zeros before the first fit.
  std::vector<float> predict(const std::vector<std::vector<float>>& rows) const;
  CostObjective objective() const { return objective_; }

 private:
  CostObjective objective_;
  uint64_t seed_;
  int rounds_;
  void* booster_ = nullptr;
};

}  // namespace texc
