// tune_model_eval: how well the cost model's objectives order real measurements, apart from the
// luck of a search. Reads records files (texc tune), keeps the ok and failed records of one
// workload that carry features, and for many random splits trains each objective on `train`
// records and scores it on the rest: the fraction of pairs ordered right, and the regret of its
// top-8 (best true GFLOP/s among the 8 best predicted / best of the held-out set). Labels as in
// the tuner (throughput / best of the training set, failures 0).
// usage: tune_model_eval [--train N] [--splits S] R.jsonl...
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "tuner/CostModel.h"
#include "tuner/Features.h"
#include "tuner/Records.h"

using namespace texc;

int main(int argc, char** argv) {
  int train = 64, splits = 20;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--train" && i + 1 < argc) train = std::atoi(argv[++i]);
    else if (a == "--splits" && i + 1 < argc) splits = std::atoi(argv[++i]);
    else files.push_back(a);
  }
  std::map<std::string, Record> unique;  // by knobs: one record per configuration (the first)
  for (const std::string& f : files)
    for (Record& r : read_records(f).records) {
      if (r.features.size() != size_t(kFeatureLength)) continue;
      std::string key = r.op + format_shapes(r.shapes);
      for (auto& [k, v] : r.knobs) key += " " + k + "=" + std::to_string(v);
      unique.emplace(key, std::move(r));
    }
  std::vector<Record> records;
  for (auto& [k, r] : unique) records.push_back(r);
  if (int(records.size()) < train + 16) {
    std::fprintf(stderr, "tune_model_eval: %zu distinct records with features, need at least %d\n", records.size(),
                 train + 16);
    return 1;
  }
  std::printf("%zu distinct configurations; %d splits, %d training records each\n", records.size(), splits, train);
  for (CostObjective objective : {CostObjective::Rank, CostObjective::Regression}) {
    double pairs_sum = 0, regret_sum = 0;
    for (int s = 0; s < splits; ++s) {
      std::mt19937 rng(s);
      std::vector<size_t> order(records.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      TrainingSet data;
      double best = 0;
      for (int i = 0; i < train; ++i) best = std::max(best, records[order[i]].ok() ? records[order[i]].gflops : 0.0);
      for (int i = 0; i < train; ++i) {
        const Record& r = records[order[i]];
        data.features.push_back(r.features);
        data.labels.push_back(best > 0 && r.ok() ? float(r.gflops / best) : 0.0f);
        data.groups.push_back(0);
      }
      CostModel model(objective, uint64_t(s));
      model.fit(data);
      std::vector<std::vector<float>> rows;
      std::vector<double> truth;
      for (size_t i = train; i < order.size(); ++i) {
        rows.push_back(records[order[i]].features);
        truth.push_back(records[order[i]].ok() ? records[order[i]].gflops : 0.0);
      }
      std::vector<float> p = model.predict(rows);
      long agree = 0, total = 0;
      for (size_t i = 0; i < truth.size(); ++i)
        for (size_t j = i + 1; j < truth.size(); ++j) {
          if (truth[i] == truth[j]) continue;
          ++total;
          agree += (double(p[i]) - p[j]) * (truth[i] - truth[j]) > 0;
        }
      std::vector<size_t> idx(truth.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] > p[b]; });
      double top = 0, all = *std::max_element(truth.begin(), truth.end());
      for (size_t k = 0; k < std::min<size_t>(8, idx.size()); ++k) top = std::max(top, truth[idx[k]]);
      pairs_sum += double(agree) / std::max(1L, total);
      regret_sum += all > 0 ? top / all : 0;
    }
    std::printf("%-5s pairs ordered right %.3f   best of top-8 / best held-out %.3f\n", objective_name(objective),
                pairs_sum / splits, regret_sum / splits);
  }
  return 0;
}
