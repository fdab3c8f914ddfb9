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
#pragma once
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
  /// Jobs published and results taken so far.
  int published() const { return published_; }
  int reused() const { return reused_; }

 private:
  FarmOptions options_;
  std::ostream& notes_;
  std::unique_ptr<RedisClient> redis_;
  FarmJobTemplate template_;
  std::vector<std::string> submitted_;  // job ids, in order
  int published_ = 0, reused_ = 0;
};

/// The runner that names the farm's device in records (device(), machine()); its run() throws (the
/// workers measure). Waits until a worker of `options.device` has registered, with a note.
std::unique_ptr<Runner> make_farm_device(const FarmOptions& options, std::ostream& notes);

}  // namespace texc
