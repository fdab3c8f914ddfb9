#include "tools/farm/FarmWorker.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace texc {

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_stop_signal(int) { stop_requested = true; }

void install_stop_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a child's measurement in progress goes on
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

std::string default_consumer() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + "-" + std::to_string(getpid());
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

/// One stream entry: its id and fields.
struct Entry {
  std::string id;
  std::map<std::string, std::string> fields;
};

std::optional<Entry> entry_of(const RedisReply& e) {
  if (e.kind != RedisReply::Kind::Array || e.elements.size() < 2) return std::nullopt;
  Entry out;
  out.id = e.elements[0].text;
  const RedisReply& f = e.elements[1];
  for (size_t i = 0; i + 1 < f.elements.size(); i += 2) out.fields[f.elements[i].text] = f.elements[i + 1].text;
  return out;
}

/// The broker's clock in milliseconds (0 if it does not say).
long long broker_ms(RedisClient& redis) {
  RedisReply now = redis.command({"TIME"});
  if (now.elements.size() != 2) return 0;
  return std::atoll(now.elements[0].text.c_str()) * 1000 + std::atoll(now.elements[1].text.c_str()) / 1000;
}

}  // namespace

void run_worker(const WorkerOptions& options, const Runner& device, const MeasureJob& measure, std::ostream& log) {
  install_stop_handlers();
  const std::string kind = options.farm.device;
  const std::string stream = farm_keys::jobs(kind);
  const std::string consumer = options.consumer.empty() ? default_consumer() : options.consumer;
  RedisClient redis(options.farm.broker, options.farm.password);
  RedisReply g = redis.command({"XGROUP", "CREATE", stream, farm_keys::group(), "0", "MKSTREAM"}, true);
  if (g.kind == RedisReply::Kind::Error && g.text.rfind("BUSYGROUP", 0) != 0) throw BrokerError(g.text);
  Machine m = device.machine();
  redis.command({"HSET", farm_keys::device(kind), "device", device.device(), "machine_name", m.name, "machine_triple",
                 m.triple, "machine_cpu", m.cpu, "machine_features", joined(m.features)});
  log << "texc worker " << consumer << ": measuring jobs of device kind '" << kind << "' (" << device.device()
      << ") from " << options.farm.broker.url() << "\n" << std::flush;

  // The heartbeat: the worker's key, and the job in hand kept claimed.
  const auto beat = std::chrono::milliseconds(std::max<long>(100, long(options.visibility_s * 1000 / 3)));
  const std::string ttl_ms = std::to_string(std::max<long>(1000, long(options.visibility_s * 1000)));
  std::mutex in_hand_mutex;
  std::string in_hand;
  std::atomic<bool> beating{true};
  std::thread heartbeat([&] {
    try {
      RedisClient hb(options.farm.broker, options.farm.password);
      while (beating) {
        hb.command({"SET", farm_keys::worker(kind, consumer), device.device(), "PX", ttl_ms});
        long long now = broker_ms(hb);
        hb.command({"ZADD", farm_keys::alive(kind), std::to_string(now + std::stoll(ttl_ms)), consumer});
        hb.command({"ZREMRANGEBYSCORE", farm_keys::alive(kind), "-inf", std::to_string(now)});
        std::string id;
        {
          std::lock_guard<std::mutex> lock(in_hand_mutex);
          id = in_hand;
        }
        if (!id.empty()) hb.command({"XCLAIM", stream, farm_keys::group(), consumer, "0", id, "JUSTID"});
        for (auto waited = std::chrono::milliseconds(0); waited < beat && beating; waited += std::chrono::milliseconds(50))
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    } catch (const BrokerError& e) {
      log << "texc worker " << consumer << ": heartbeat stopped: " << e.what() << "\n" << std::flush;
    }
  });
  struct JoinHeartbeat {
    std::atomic<bool>& beating;
    std::thread& t;
    ~JoinHeartbeat() {
      beating = false;
      t.join();
    }
  } join_heartbeat{beating, heartbeat};

  double delay_s = 0;
  if (const char* d = std::getenv("TEXC_FARM_TEST_DELAY_S")) delay_s = std::atof(d);
  const std::string min_idle_ms = std::to_string(long(options.visibility_s * 1000));
  int measured = 0, shipped = 0;  // shipped: of those measured, the jobs that carried their candidate compiled
  // Acknowledged, a job leaves the stream too: the stream holds the jobs queued and in flight only.
  auto acknowledge = [&](const std::string& entry_id) {
    redis.command({"XACK", stream, farm_keys::group(), entry_id});
    redis.command({"XDEL", stream, entry_id});
  };
  auto reject = [&](const Entry& e, const std::string& why) {
    log << "texc worker " << consumer << ": rejected job " << e.id << ": " << why << "\n" << std::flush;
    redis.command({"INCR", farm_keys::rejected(kind)});
    acknowledge(e.id);
  };
  while (!stop_requested && (options.max_jobs == 0 || measured < options.max_jobs)) {
    // A job whose worker stopped heartbeating first, then a new one.
    std::optional<Entry> entry;
    RedisReply claimed = redis.command({"XAUTOCLAIM", stream, farm_keys::group(), consumer, min_idle_ms, "0-0", "COUNT", "1"});
    if (claimed.elements.size() >= 2 && !claimed.elements[1].elements.empty()) {
      entry = entry_of(claimed.elements[1].elements[0]);
      if (entry) {
        log << "texc worker " << consumer << ": reclaimed job " << entry->id << " (its worker stopped)\n" << std::flush;
        redis.command({"INCR", farm_keys::reclaimed(kind)});
      }
    }
    if (!entry) {
      RedisReply r = redis.command({"XREADGROUP", "GROUP", farm_keys::group(), consumer, "COUNT", "1", "BLOCK", "500",
                                    "STREAMS", stream, ">"});
      if (r.nil() || r.elements.empty() || r.elements[0].elements.size() < 2 || r.elements[0].elements[1].elements.empty())
        continue;
      entry = entry_of(r.elements[0].elements[1].elements[0]);
      if (!entry) continue;
    }
    size_t bytes = 0;
    for (const auto& [k, v] : entry->fields) bytes += k.size() + v.size();
    if (bytes > options.max_job_bytes) {
      reject(*entry, std::to_string(bytes) + " bytes, more than the limit of " + std::to_string(options.max_job_bytes));
      continue;
    }
    if (!entry->fields.count("id") || !entry->fields.count("job")) {
      reject(*entry, "no 'id' and 'job' fields");
      continue;
    }
    ParsedJob parsed = parse_farm_job(entry->fields.at("job"));
    if (!parsed.job) {
      reject(*entry, "not a well-formed job: " + parsed.error);
      continue;
    }
    if (parsed.job->device != kind) {
      reject(*entry, "a job of device kind '" + parsed.job->device + "', not '" + kind + "'");
      continue;
    }
    if (parsed.job->artefact) {
      std::string why = artefact_refusal(*parsed.job->artefact, options.target, options.machine);
      if (!why.empty()) {
        reject(*entry, why);
        continue;
      }
    }
    const std::string id = entry->fields.at("id");
    if (parsed.job->id() != id) {
      reject(*entry, "its id " + id + " is not the hash of its content");
      continue;
    }
    if (!redis.command({"EXISTS", farm_keys::result(id)}).integer) {
      {
        std::lock_guard<std::mutex> lock(in_hand_mutex);
        in_hand = entry->id;
      }
      if (delay_s > 0) usleep(useconds_t(delay_s * 1e6));
      Measurement m;
      try {
        m = measure(*parsed.job);
      } catch (const std::exception& e) {
        m.status = "error";
        m.message = std::string("the worker could not rebuild the candidate: ") + e.what();
      }
      redis.command({"SET", farm_keys::result(id), measurement_to_json(m), "NX", "EX", "3600"});  // an hour: docs/tuning.md, "A paper plan"
      redis.command({"INCR", farm_keys::done(kind)});
      if (m.status != "ok") redis.command({"INCR", farm_keys::failed(kind)});
      // For `texc farm status`'s results per minute: the broker's clock, the last 10 minutes kept.
      if (long long ms = broker_ms(redis)) {
        redis.command({"ZADD", farm_keys::finished(kind), std::to_string(ms), id});
        redis.command({"ZREMRANGEBYSCORE", farm_keys::finished(kind), "-inf", std::to_string(ms - 600 * 1000)});
      }
      ++measured;
      if (parsed.job->artefact) ++shipped;
    }
    acknowledge(entry->id);
    std::lock_guard<std::mutex> lock(in_hand_mutex);
    in_hand.clear();
  }
  redis.command({"DEL", farm_keys::worker(kind, consumer)});
  redis.command({"ZREM", farm_keys::alive(kind), consumer});
  log << "texc worker " << consumer << ": stopped after " << measured << " job(s), " << shipped
      << " of them compiled by the tuner\n" << std::flush;
}

}  // namespace texc
