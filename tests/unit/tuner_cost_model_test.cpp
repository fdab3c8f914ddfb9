// tuner/CostModel.h: both objectives learn the order of a synthetic throughput from features,
// including across query groups of different scales; before a fit every prediction is 0.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "tuner/CostModel.h"

using namespace texc;

namespace {

/// Fraction of pairs (i, j) whose predicted order agrees with the true one.
double pair_agreement(const std::vector<float>& predicted, const std::vector<float>& truth) {
  int agree = 0, total = 0;
  for (size_t i = 0; i < truth.size(); ++i)
    for (size_t j = i + 1; j < truth.size(); ++j) {
      if (truth[i] == truth[j]) continue;
      ++total;
      agree += (predicted[i] - predicted[j]) * (truth[i] - truth[j]) > 0;
    }
  return double(agree) / total;
}

/// A throughput that peaks at x0 = 5 and grows with x1; x2 is noise.
float throughput(const std::vector<float>& x) { return 10.0f - std::abs(x[0] - 5.0f) + 0.5f * x[1]; }

std::vector<float> random_row(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0, 10);
  return {u(rng), u(rng), u(rng)};
}

}  // namespace

TEST_CASE("rank and regression both learn the order of held-out points") {
  for (CostObjective objective : {CostObjective::Rank, CostObjective::Regression}) {
    INFO(objective_name(objective));
    std::mt19937 rng(7);
    CostModel model(objective, 1);
    std::vector<std::vector<float>> held_out;
    for (int i = 0; i < 100; ++i) held_out.push_back(random_row(rng));
    CHECK(model.predict(held_out) == std::vector<float>(100, 0.0f));
    TrainingSet data;
    float best = 0;
    for (int i = 0; i < 120; ++i) {
      data.features.push_back(random_row(rng));
      best = std::max(best, throughput(data.features.back()));
    }
    for (auto& x : data.features) {
      data.labels.push_back(throughput(x) / best);
      data.groups.push_back(0);
    }
    model.fit(data);
    CHECK(model.trained());
    std::vector<float> truth;
    for (auto& x : held_out) truth.push_back(throughput(x));
    CHECK(pair_agreement(model.predict(held_out), truth) > 0.85);
  }
}

TEST_CASE("ranking across groups of different scales: orders within a group are learnt") {
  std::mt19937 rng(3);
  TrainingSet data;
  for (int g = 0; g < 3; ++g)
    for (int i = 0; i < 60; ++i) {
      std::vector<float> x = random_row(rng);
      data.features.push_back(x);
      data.labels.push_back(throughput(x) * float(g + 1) * 0.05f);  // each group its own scale
      data.groups.push_back(g);
    }
  data.group_weight = {1.0f, 0.5f, 0.25f};
  CostModel model(CostObjective::Rank, 2);
  model.fit(data);
  std::vector<std::vector<float>> test;
  std::vector<float> truth;
  for (int i = 0; i < 80; ++i) {
    test.push_back(random_row(rng));
    truth.push_back(throughput(test.back()));
  }
  CHECK(pair_agreement(model.predict(test), truth) > 0.85);
}
