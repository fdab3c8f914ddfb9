// FarmMeasurer: `texc tune --broker` — the tuner's batches measured by the farm's workers
// (tuner/Measure.h BatchMeasurer). Each valid candidate becomes a FarmJob on the stream of its
// device kind (farm_keys::jobs) as soon as the tuner has lowered it (submit); a job whose result is
// already stored (the same candidate measured before, by this or another tune process) is not
// published again. collect() waits until every job of the batch has its result (polling the result keys) and returns them in order, so
// the records are written as local tuning writes them, one per job id. Redelivered jobs cannot
// make a second record: the worker stores a result only if none exists (SET NX) and the tuner
// reads exactly one result per job of its batch.
//
// FarmDevice: the device a farm's workers of one kind registered (farm_keys::device), which the
// records name as local tuning names its runner's; the tuner waits for the first worker.
//
// With `--compile-on tuner` (set_compiler) each candidate is compiled here, in a child process, and
// its job carries the artefact (FarmArtefact.h); a candidate that does not compile gets an "error"
// measurement here and no job. progress() is the farm's state of the kind for the progress line.
#pragma once
#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "tools/farm/FarmJob.h"
#include "tools/farm/RedisClient.h"
#include "tuner/Measure.h"

namespace texc {

struct FarmOptions {
  BrokerAddress broker;
  std::string password;  // "" = no AUTH
  std::string device;    // the device kind
};

/// What every job of one op shares: source, compile arguments, op, seed, repeat, timeout.
using FarmJobTemplate = FarmJob;

class FarmMeasurer : public BatchMeasurer {
 public:
  FarmMeasurer(const FarmOptions& options, std::ostream& notes);
  /// The op the next batches are of (the template's knobs are ignored).
  void set_template(const FarmJobTemplate& t) { template_ = t; }
  /// Publishes the candidate's job, unless its result is already stored.
  void submit(const OpDef& op, const Candidate& candidate) override;
  /// Waits for the results of the jobs submitted since the last collect() (polling the result keys).
  std::vector<Measurement> collect() override;
  /// Compiles a candidate into the artefact its job carries (throws std::exception when it cannot).
  using CompileCandidate = std::function<FarmArtefact(const Candidate&)>;
  /// With `--compile-on tuner`: every job from now on carries its candidate compiled by `compile`.
  void set_compiler(CompileCandidate compile) { compile_ = std::move(compile); }
  /// "farm KIND: 2 worker(s), 0 queued, ..." (FarmStatus.h farm_progress_text).
  std::string progress() override;
  /// Jobs published and results taken so far.
  int published() const { return published_; }
  int reused() const { return reused_; }

 private:
  FarmOptions options_;
  std::ostream& notes_;
  std::unique_ptr<RedisClient> redis_;
  FarmJobTemplate template_;
  CompileCandidate compile_;
  /// The candidates since the last collect(), in order: a job's id, or the measurement of one that
  /// did not compile here.
  struct Submitted {
    std::string id;
    std::optional<Measurement> local;
  };
  std::vector<Submitted> submitted_;
  int published_ = 0, reused_ = 0;
};

/// The runner that names the farm's device in records (device(), machine()); its run() throws (the
/// workers measure). Waits until a worker of `options.device` has registered, with a note.
std::unique_ptr<Runner> make_farm_device(const FarmOptions& options, std::ostream& notes);

}  // namespace texc
