#include "tuner/CostModel.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

namespace texc {

const char* objective_name(CostObjective objective) { return objective == CostObjective::Rank ? "rank" : "reg"; }

namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("XGBoost: ") + what + ": " + XGBGetLastError());
}

/// A dense DMatrix of `rows` (all of one width), freed on destruction.
struct Matrix {
  DMatrixHandle handle = nullptr;
  explicit Matrix(const std::vector<const std::vector<float>*>& rows) {
    size_t width = rows.empty() ? 0 : rows[0]->size();
    std::vector<float> data;
    data.reserve(rows.size() * width);
    for (const auto* r : rows) data.insert(data.end(), r->begin(), r->end());
    check(XGDMatrixCreateFromMat(data.data(), rows.size(), width, -1e30f, &handle), "creating a matrix");
  }
  ~Matrix() {
    if (handle) XGDMatrixFree(handle);
  }
};

}  // namespace

CostModel::CostModel(CostObjective objective, uint64_t seed, int rounds)
    : objective_(objective), seed_(seed), rounds_(rounds) {}

CostModel::~CostModel() {
  if (booster_) XGBoosterFree(booster_);
}

void CostModel::fit(const TrainingSet& data) {
  if (data.features.empty()) return;
  // Rows grouped contiguously (ranking needs it), own order kept within a group.
  std::vector<size_t> order(data.features.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return data.groups[a] < data.groups[b]; });
  std::vector<const std::vector<float>*> rows;
  std::vector<float> labels, row_weights, group_weights;
  std::vector<unsigned> group_sizes;
  for (size_t k = 0; k < order.size(); ++k) {
    size_t i = order[k];
    int g = data.groups[i];
    float w = size_t(g) < data.group_weight.size() ? data.group_weight[g] : 1.0f;
    rows.push_back(&data.features[i]);
    labels.push_back(data.labels[i]);
    row_weights.push_back(w);
    if (k == 0 || data.groups[order[k - 1]] != g) {
      group_sizes.push_back(0);
      group_weights.push_back(w);
    }
    ++group_sizes.back();
  }
  Matrix m(rows);
  check(XGDMatrixSetFloatInfo(m.handle, "label", labels.data(), labels.size()), "setting labels");
  if (objective_ == CostObjective::Rank) {
    check(XGDMatrixSetUIntInfo(m.handle, "group", group_sizes.data(), group_sizes.size()), "setting groups");
    check(XGDMatrixSetFloatInfo(m.handle, "weight", group_weights.data(), group_weights.size()), "setting weights");
  } else {
    check(XGDMatrixSetFloatInfo(m.handle, "weight", row_weights.data(), row_weights.size()), "setting weights");
  }
  BoosterHandle booster = nullptr;
  check(XGBoosterCreate(&m.handle, 1, &booster), "creating a booster");
  auto set = [&](const char* k, const std::string& v) { check(XGBoosterSetParam(booster, k, v.c_str()), k); };
  try {
    set("objective", objective_ == CostObjective::Rank ? "rank:pairwise" : "reg:squarederror");
    set("max_depth", "3");
    set("eta", "0.3");
    set("gamma", "0.0001");
    set("min_child_weight", "1");
    set("subsample", "1.0");
    set("lambda", "1");
    set("nthread", "1");
    set("verbosity", "0");
    set("seed", std::to_string(seed_ % 2147483647));
    for (int r = 0; r < rounds_; ++r) check(XGBoosterUpdateOneIter(booster, r, m.handle), "training");
  } catch (...) {
    XGBoosterFree(booster);
    throw;
  }
  if (booster_) XGBoosterFree(booster_);
  booster_ = booster;
}

std::vector<float> CostModel::predict(const std::vector<std::vector<float>>& rows) const {
  if (!booster_ || rows.empty()) return std::vector<float>(rows.size(), 0.0f);
  std::vector<const std::vector<float>*> pointers;
  for (const auto& r : rows) pointers.push_back(&r);
  Matrix m(pointers);
  bst_ulong length = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(booster_, m.handle, 0, 0, 0, &length, &out), "predicting");
  return std::vector<float>(out, out + length);
}

}  // namespace texc
