#include "tools/farm/FarmMeasurer.h"

#include <unistd.h>

#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "tools/farm/FarmStatus.h"

namespace texc {

namespace {

/// Creates the consumer group of `device`'s stream (and the stream) if missing.
void ensure_group(RedisClient& redis, const std::string& device) {
  RedisReply r = redis.command({"XGROUP", "CREATE", farm_keys::jobs(device), farm_keys::group(), "0", "MKSTREAM"}, true);
  if (r.kind == RedisReply::Kind::Error && r.text.rfind("BUSYGROUP", 0) != 0)
    throw BrokerError("cannot create the consumer group of " + farm_keys::jobs(device) + ": " + r.text);
}

class FarmDevice : public Runner {
 public:
  FarmDevice(std::string device, Machine machine) : device_(std::move(device)), machine_(std::move(machine)) {}
  std::string device() const override { return device_; }
  Machine machine() const override { return machine_; }
  std::vector<double> run(const LoweredFunc&, std::vector<Tensor*>&, int) override {
    throw std::runtime_error("the farm's workers measure, not the tuner");
  }

 private:
  std::string device_;
  Machine machine_;
};

}  // namespace

FarmMeasurer::FarmMeasurer(const FarmOptions& options, std::ostream& notes)
    : options_(options), notes_(notes), redis_(std::make_unique<RedisClient>(options.broker, options.password)) {
  ensure_group(*redis_, options_.device);
}

void FarmMeasurer::submit(const OpDef&, const Candidate& candidate) {
  FarmJob job = template_;
  job.device = options_.device;
  job.knobs = candidate.config;
  if (compile_) {
    try {
      job.artefact = compile_(candidate);
    } catch (const std::exception& e) {  // measured as local tuning measures a candidate that does not build
      Measurement m;
      m.status = "error";
      m.message = e.what();
      submitted_.push_back({"", m});
      return;
    }
  }
  std::string id = job.id();
  submitted_.push_back({id, std::nullopt});
  if (redis_->command({"EXISTS", farm_keys::result(id)}).integer) {
    ++reused_;
    return;
  }
  redis_->command({"XADD", farm_keys::jobs(options_.device), "*", "id", id, "job", job.to_json()});
  ++published_;
}

std::vector<Measurement> FarmMeasurer::collect() {
  std::vector<Submitted> batch;
  batch.swap(submitted_);
  std::map<std::string, Measurement> results;
  std::set<std::string> ids;
  for (const Submitted& s : batch)
    if (!s.local) ids.insert(s.id);
  auto start = std::chrono::steady_clock::now();
  bool noted = false;
  while (results.size() < ids.size()) {
    std::vector<std::string> mget = {"MGET"};
    std::vector<std::string> waiting;
    for (const std::string& id : ids)
      if (!results.count(id)) {
        mget.push_back(farm_keys::result(id));
        waiting.push_back(id);
      }
    RedisReply r = redis_->command(mget);
    for (size_t i = 0; i < waiting.size() && i < r.elements.size(); ++i) {
      if (r.elements[i].nil()) continue;
      std::optional<Measurement> m = measurement_from_json(r.elements[i].text);
      if (!m) throw BrokerError("the result of job " + waiting[i] + " is not a measurement");
      results[waiting[i]] = *m;
    }
    if (results.size() == ids.size()) break;
    if (!noted && std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
      KindStatus status = read_kind_progress(*redis_, options_.device);
      notes_ << "texc: note: waiting for the results of " << waiting.size() << " job(s) on device kind '"
             << options_.device << "' (" << status.workers.size() << " worker(s) alive, " << status.rejected
             << " job(s) rejected by its workers: their logs say why)\n";
      noted = true;
    }
    usleep(20000);
  }
  std::vector<Measurement> out;
  for (const Submitted& s : batch) out.push_back(s.local ? *s.local : results.at(s.id));
  return out;
}

std::string FarmMeasurer::progress() { return farm_progress_text(read_kind_progress(*redis_, options_.device)); }

std::unique_ptr<Runner> make_farm_device(const FarmOptions& options, std::ostream& notes) {
  RedisClient redis(options.broker, options.password);
  bool noted = false;
  for (;;) {
    RedisReply r = redis.command({"HGETALL", farm_keys::device(options.device)});
    if (!r.elements.empty()) {
      std::map<std::string, std::string> fields;
      for (size_t i = 0; i + 1 < r.elements.size(); i += 2) fields[r.elements[i].text] = r.elements[i + 1].text;
      Machine m;
      m.name = fields["machine_name"];
      m.triple = fields["machine_triple"];
      m.cpu = fields["machine_cpu"];
      std::istringstream features(fields["machine_features"]);
      for (std::string f; std::getline(features, f, ',');)
        if (!f.empty()) m.features.push_back(f);
      return std::make_unique<FarmDevice>(fields["device"], m);
    }
    if (!noted)
        notes << "texc: note: no worker of device kind '" << options.device << "' has registered at "
              << options.broker.url() << " yet; waiting (start one with texc worker --device " << options.device << ")\n";
    noted = true;
    sleep(1);
  }
}

}  // namespace texc
