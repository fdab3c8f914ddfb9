#include "tuner/Tuner.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "backends/execute/TimeCalls.h"  // median_of
#include "tuner/Explorer.h"
#include "tuner/Progress.h"
#include "tuner/Records.h"
#include "tuner/Space.h"

namespace texc {

double gflops_of(const OpDef& op, double median_ms) {
  return median_ms > 0 ? count_flops(op) / (median_ms * 1e6) : 0;
}

namespace {

/// The transfer records as training data: one group per workload and device, throughput
/// normalized to the group's best; records of `skip`'s workload measured on its device (they are
/// resumed, not transferred) and of other feature versions are left out.
TrainingSet transfer_set(const std::vector<Record>& all, const Record& skip) {
  std::map<std::string, std::vector<const Record*>> groups;
  for (const Record& r : all) {
    if ((r.same_workload(skip) && same_device(r.device, skip.device)) || r.features_version != kFeatureVersion ||
        r.features.size() != size_t(kFeatureLength))
      continue;
    groups[(r.task.empty() ? r.op + "|" + format_shapes(r.shapes) : "task " + r.task) + "|" + r.target + "|" + r.device]
        .push_back(&r);
  }
  TrainingSet data;
  int g = 0;
  for (auto& [key, records] : groups) {
    double best = 0;
    for (const Record* r : records) best = std::max(best, r->ok() ? r->gflops : 0.0);
    if (best <= 0) continue;
    for (const Record* r : records) {
      data.features.push_back(r->features);
      data.labels.push_back(r->ok() ? float(r->gflops / best) : 0.0f);
      data.groups.push_back(g);
    }
    ++g;
  }
  return data;
}

/// The prior of a re-tune on a new machine: the configurations of `base`'s workload that other
/// devices measured (`transfer`, and this workload's records of other devices in the file), the
/// fastest of each device first, taking the devices in turn; at most `n`, none already visited.
/// Measured before the explorer's first proposal, so a machine whose best configuration another
/// machine already found reaches it in the first batch (tests/tuner/tune_test.sh measures it).
std::vector<uint64_t> prior_configurations(const std::vector<Record>& transfer, const Record& base, const Space& space,
                                           const std::set<uint64_t>& visited, int n) {
  std::map<std::string, std::vector<const Record*>> by_device;
  for (const Record& r : transfer)
    if (r.ok() && r.same_workload(base) && !same_device(r.device, base.device)) by_device[r.device].push_back(&r);
  for (auto& [device, records] : by_device)
    std::stable_sort(records.begin(), records.end(), [](const Record* a, const Record* b) { return a->gflops > b->gflops; });
  std::vector<uint64_t> prior;
  std::set<uint64_t> taken;
  for (size_t rank = 0; int(prior.size()) < n; ++rank) {
    bool any = false;
    for (const auto& [device, records] : by_device) {
      if (rank >= records.size() || int(prior.size()) >= n) continue;
      any = true;
      uint64_t index = space.index(records[rank]->knobs);
      if (index == UINT64_MAX) continue;  // another version of the template
      index = space.canonical(index);
      if (!visited.count(index) && taken.insert(index).second) prior.push_back(index);
    }
    if (!any) break;
  }
  return prior;
}

/// Fills r from the measurement `m` of the lowered candidate c: status, message, times and
/// throughput, features, and the time of day.
void record_measurement(Record& r, const OpDef& op, const Candidate& c, const Measurement& m,
                        const MeasureOptions& options) {
  r.status = m.status;
  r.message = m.message;
  r.max_rel_err = m.max_rel_err;
  r.features = c.features;
  if (!m.times.empty()) {
    r.median_ms = m.median;
    r.min_ms = m.min;
    r.max_ms = m.max;
    r.spread = m.median > 0 ? (m.max - m.min) / m.median : 0;
    r.repeats = int(m.times.size());
    // The op's definition counts the flops, not the `compute TARGET` implementation measured.
    r.gflops = gflops_of(options.definition ? *options.definition : op, m.median);
  }
  r.time = utc_now();
}

/// An invalid candidate's record: not run, its record says why.
void record_invalid(Record& r, const Candidate& c) {
  r.status = "invalid";
  r.message = c.invalid_reason;
  r.time = utc_now();
}

/// Measures a lowered candidate (an invalid one is not run: its record says why) into r, here or
/// through options.measurer.
void measure_into(Record& r, const OpDef& op, const Candidate& c, Runner& runner, const TuneOptions& options) {
  if (!c.valid) return record_invalid(r, c);
  Measurement m = options.measurer ? options.measurer->measure_one(op, c) : measure(op, c, runner, options.measure);
  record_measurement(r, op, c, m, options.measure);
}

/// Records that cannot be used (record_defect, or knob values outside the op's lists), each said
/// in a warning on the progress stream; past the first few, only counted (finish() says how many).
class SkippedRecords {
 public:
  explicit SkippedRecords(std::ostream& out) : out_(out) {}
  /// Whether `r` (of `file`) can be used; a warning when not.
  bool usable(const Record& r, const std::string& file) {
    std::optional<std::string> defect = record_defect(r);
    if (defect) skip(r, file, *defect);
    return !defect;
  }
  void skip(const Record& r, const std::string& file, const std::string& why) {
    if (++count_ <= kShown)
      out_ << "texc: warning: skipped the record at " << file << (r.line ? ":" + std::to_string(r.line) : "")
           << ": " << why << "\n";
  }
  void finish() {
    if (count_ > kShown) out_ << "texc: warning: skipped " << count_ - kShown << " more such records\n";
    count_ = 0;
  }

 private:
  static constexpr int kShown = 5;
  std::ostream& out_;
  int count_ = 0;
};

/// Configurations whose time `--remeasure` confirms, and what was measured of them.
struct ConfigurationTimes {
  std::vector<double> gflops;
  Record first;
  void add(const Record& r) {
    if (gflops.empty()) first = r;
    gflops.push_back(r.gflops);
  }
  double median() const { return median_of(gflops); }
};

/// --remeasure N: the N configurations with the best median throughput are each measured (at
/// least) twice, re-ranking after every new measurement, so that a configuration first measured
/// while the machine was fast does not stay the best on that one figure. At most 3N measurements;
/// those made in an earlier run count (resume). summary.best becomes the best configuration by
/// its median.
void remeasure_best(const OpDef& op, const Space& space, Runner& runner, const TuneOptions& options,
                    const Record& base, std::map<uint64_t, ConfigurationTimes>& measured, RecordWriter& writer,
                    TuneSummary& summary) {
  auto ranked = [&] {  // best median first
    std::vector<std::pair<double, uint64_t>> by_median;
    for (const auto& [index, t] : measured) by_median.push_back({t.median(), index});
    std::stable_sort(by_median.begin(), by_median.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<uint64_t> order;
    for (const auto& [median, index] : by_median) order.push_back(index);
    return order;
  };
  for (int spent = 0; spent < 3 * options.remeasure; ++spent) {
    std::vector<uint64_t> order = ranked();
    auto top_end = order.begin() + std::min<size_t>(order.size(), options.remeasure);
    auto once = std::find_if(order.begin(), top_end, [&](uint64_t index) { return measured.at(index).gflops.size() < 2; });
    if (once == top_end) break;
    Candidate c = lower_candidate(op, space, *once, options.lower);
    Record r = base;
    r.tuner = kRemeasureTuner;
    r.index = *once;
    r.knobs = c.config;
    r.trial = measured.at(*once).first.trial;  // the trial it repeats
    measure_into(r, op, c, runner, options);
    writer.append(r);
    ++summary.remeasured;
    // A failed second measurement counts as no throughput: the configuration is not dependable.
    measured.at(*once).gflops.push_back(r.ok() ? r.gflops : 0.0);
  }
  std::vector<uint64_t> order = ranked();
  if (order.empty()) return;
  const ConfigurationTimes& top = measured.at(order.front());
  if (top.median() <= 0) return;
  summary.best = top.first;
  summary.best->median_ms *= top.first.gflops / top.median();
  summary.best->gflops = top.median();
}

}  // namespace

TuneSummary tune_op(const OpDef& op, Runner& runner, const TuneOptions& options, std::ostream& progress_out) {
  TuneSummary summary;
  Space space(op, options.lower.target);
  Record base;
  base.op = op.name;
  base.task = options.task;
  base.target = options.lower.target;
  base.device = runner.device();
  base.machine = runner.machine();
  base.shapes = op_shapes(op);
  for (const SchedKnob& k : space.knobs()) base.knob_order.push_back(k.name);
  base.tuner = options.tuner;
  base.texc_version = options.texc_version;
  base.features_version = kFeatureVersion;

  std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ull + 1);
  std::set<uint64_t> visited;
  std::map<uint64_t, ConfigurationTimes> measured;  // for --remeasure
  int failures = 0;
  auto consider_best = [&](const Record& r) {
    if (r.ok() && (!summary.best || r.gflops > summary.best->gflops)) summary.best = r;
  };
  SkippedRecords skipped(progress_out);
  std::vector<Record> transfer;
  for (const std::string& p : options.transfer)
    for (Record& r : read_records(p, "--transfer").records)
      if (skipped.usable(r, p)) transfer.push_back(std::move(r));

  // The records of this workload in the file count as trials done and are never measured again:
  // those there at the start (resume), and after each batch those another `texc tune` on the same
  // file appended meanwhile. Records of this workload measured on another device are no
  // measurements of this one: they are not resumed (every configuration may be measured again
  // here) but, at the start, teach the model, like --transfer.
  auto take_records = [&](RecordFile file, std::vector<Record>* other_devices) {
    std::vector<Observation> observations;
    for (const Record& r : file.records) {
      if (!r.same_workload(base) || !skipped.usable(r, options.records)) continue;
      if (!same_device(r.device, base.device)) {
        if (other_devices) other_devices->push_back(r);
        continue;
      }
      uint64_t index = space.index(r.knobs);
      if (index == UINT64_MAX) {
        skipped.skip(r, options.records, "knobs " + space.describe(r.knobs) + " are not all in the lists of op '" +
                                             op.name + "' (a corrupt record, or one of an older version of its schedule)");
        continue;
      }
      index = space.canonical(index);
      if (r.ok()) measured[index].add(r);
      else if (r.tuner == kRemeasureTuner && measured.count(index)) measured[index].gflops.push_back(0.0);  // as below
      if (r.tuner == kRemeasureTuner) {  // a second measurement, not a trial
        ++summary.remeasured_before;
        continue;
      }
      ++summary.resumed;
      if (!visited.insert(index).second) continue;
      std::vector<float> features = r.features_version == kFeatureVersion ? r.features : std::vector<float>{};
      observations.push_back({index, r.ok() ? r.gflops : 0.0, features});
      consider_best(r);
    }
    return observations;
  };

  // The file is locked while this process reads it, proposes, measures and appends a batch
  // (RecordWriter): a second tuner on it waits for its turn.
  RecordWriter writer(options.records);
  bool said_waiting = false;
  auto lock = [&] {
    writer.lock([&] {
      if (!said_waiting)
        progress_out << "texc: note: another texc tune is measuring into " << options.records
                     << "; waiting for its batch (the two take turns and share their measurements)\n";
      said_waiting = true;
    });
  };
  lock();
  std::vector<Observation> resumed = take_records(writer.read_new(), &transfer);

  FeatureCache features([&](uint64_t index) -> std::optional<std::vector<float>> {
    Candidate c = lower_candidate(op, space, index, options.lower, /*features_only=*/true);
    if (!c.valid) return std::nullopt;
    return c.features;
  });
  ExplorerOptions explorer_options;
  explorer_options.kind = options.tuner;
  explorer_options.objective = options.objective;
  explorer_options.seed = options.seed;
  explorer_options.transfer = transfer_set(transfer, base);
  std::unique_ptr<Explorer> explorer = make_explorer(explorer_options, {&space, &features, &visited, &rng});
  if (!resumed.empty()) explorer->update(resumed);
  // The first batch: the schedule's defaults (what the op gets without records, so the records
  // never pick a configuration slower than them), then what other machines found fastest.
  std::vector<uint64_t> prior = {space.canonical(0)};
  for (uint64_t index : prior_configurations(transfer, base, space, visited, options.batch - 1)) prior.push_back(index);

  Progress progress(progress_out, options.tty, options.progress_label.empty() ? op.name : options.progress_label,
                    options.trials, summary.resumed);
  int done = summary.resumed;
  int since_best = 0;
  while (done < options.trials) {
    std::vector<uint64_t> batch;
    for (uint64_t index : prior)  // the first batch: the defaults and what other machines found fastest
      if (int(batch.size()) < std::min(options.batch, options.trials - done) && visited.insert(index).second)
        batch.push_back(index);
    prior.clear();
    if (batch.empty()) batch = explorer->next_batch(std::min(options.batch, options.trials - done));
    if (batch.empty()) {
      summary.exhausted = true;
      break;
    }
    std::vector<Observation> results;
    // Through the farm (options.measurer) the whole batch is measured at once, in parallel on its
    // workers; here, candidate after candidate, each record appended as soon as it is measured.
    std::vector<Candidate> lowered;
    std::vector<Measurement> farmed;
    if (options.measurer) {
      for (uint64_t index : batch) {
        lowered.push_back(lower_candidate(op, space, index, options.lower));
        if (lowered.back().valid) options.measurer->submit(op, lowered.back());
      }
      farmed = options.measurer->collect();
    }
    size_t next_farmed = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      uint64_t index = batch[i];
      Candidate c = options.measurer ? std::move(lowered[i]) : lower_candidate(op, space, index, options.lower);
      Record r = base;
      r.index = index;
      r.knobs = c.config;
      r.trial = ++done;
      if (!options.measurer) measure_into(r, op, c, runner, options);
      else if (!c.valid) record_invalid(r, c);
      else record_measurement(r, op, c, farmed.at(next_farmed++), options.measure);
      writer.append(r);
      if (r.ok()) measured[index].add(r);
      ++summary.measured;
      if (!r.ok()) {
        ++failures;
        ++summary.failures;
      }
      double before = summary.best ? summary.best->gflops : 0;
      consider_best(r);
      since_best = summary.best && summary.best->gflops > before ? 0 : since_best + 1;
      results.push_back({index, r.ok() ? r.gflops : 0.0, r.features});
    }
    explorer->update(results);
    progress.batch(done, summary.best ? summary.best->gflops : 0,
                   summary.best ? space.describe(summary.best->knobs) : "", failures,
                   options.measurer ? options.measurer->progress() : "");
    if (options.early_stopping > 0 && since_best >= options.early_stopping) {
      summary.stopped_early = true;
      break;
    }
    // A tuner waiting for the file takes its turn now; then what it measured counts here.
    writer.unlock();
    usleep(10000);
    lock();
    int resumed_before = summary.resumed;
    std::vector<Observation> theirs = take_records(writer.read_new(), nullptr);
    done += summary.resumed - resumed_before;
    if (!theirs.empty()) explorer->update(theirs);
  }
  progress.finish();
  summary.total = done;
  if (options.remeasure > 0) {
    remeasure_best(op, space, runner, options, base, measured, writer, summary);
    progress_out << "texc: " << op.name << ": the " << std::min<size_t>(options.remeasure, measured.size())
                 << " best configurations measured twice ("
                 << summary.remeasured << " measured again now, " << summary.remeasured_before << " before)\n";
  }
  writer.unlock();
  skipped.finish();
  return summary;
}

}  // namespace texc
