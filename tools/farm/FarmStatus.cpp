#include "tools/farm/FarmStatus.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>

#include "tools/farm/FarmJob.h"
#include "tuner/Json.h"

namespace texc {

namespace {

/// Every key matching `pattern` (SCAN, so a large broker is not blocked as by KEYS).
std::vector<std::string> scan(RedisClient& redis, const std::string& pattern) {
  std::vector<std::string> keys;
  std::string cursor = "0";
  do {
    RedisReply r = redis.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
    if (r.elements.size() != 2) break;
    cursor = r.elements[0].text;
    for (const RedisReply& k : r.elements[1].elements) keys.push_back(k.text);
  } while (cursor != "0");
  return keys;
}

/// `pattern` with Redis's glob characters escaped.
std::string glob_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

long long counter(RedisClient& redis, const std::string& key) {
  RedisReply r = redis.command({"GET", key});
  return r.nil() ? 0 : std::atoll(r.text.c_str());
}

/// The broker's clock in milliseconds.
long long broker_now_ms(RedisClient& redis) {
  RedisReply time = redis.command({"TIME"});
  return time.elements.size() == 2 ? std::atoll(time.elements[0].text.c_str()) * 1000 +
                                         std::atoll(time.elements[1].text.c_str()) / 1000
                                   : 0;
}

KindStatus kind_status_at(RedisClient& redis, const std::string& kind, long long now_ms) {
  KindStatus s;
  s.kind = kind;
  RedisReply device = redis.command({"HGET", farm_keys::device(kind), "device"});
  if (!device.nil()) s.device = device.text;
  std::string worker_prefix = farm_keys::worker(kind, "");
  for (const std::string& key : scan(redis, glob_escaped(worker_prefix) + "*")) {
    std::string name = key.substr(worker_prefix.size());
    if (name.find(':') == std::string::npos) s.workers.push_back(name);  // not a kind "KIND:more"'s
  }
  std::sort(s.workers.begin(), s.workers.end());
  const std::string stream = farm_keys::jobs(kind);
  long long length = redis.command({"XLEN", stream}).integer;
  RedisReply pending = redis.command({"XPENDING", stream, farm_keys::group(), "-", "+", "10000"}, true);
  if (pending.kind == RedisReply::Kind::Array) {
    for (const RedisReply& p : pending.elements) {  // [id, consumer, idle ms, deliveries]
      if (p.elements.size() < 4) continue;
      ++s.in_flight;
      if (p.elements[3].integer > 1) ++s.redelivered;
      s.oldest_in_flight_s = std::max(s.oldest_in_flight_s, double(p.elements[2].integer) / 1000);
    }
  }
  s.queued = std::max(0LL, length - s.in_flight);
  s.done = counter(redis, farm_keys::done(kind));
  s.failed = counter(redis, farm_keys::failed(kind));
  s.rejected = counter(redis, farm_keys::rejected(kind));
  s.reclaimed = counter(redis, farm_keys::reclaimed(kind));
  s.last_minute = redis.command({"ZCOUNT", farm_keys::finished(kind), std::to_string(now_ms - 60 * 1000), "+inf"}).integer;
  s.last_10_minutes =
      redis.command({"ZCOUNT", farm_keys::finished(kind), std::to_string(now_ms - 600 * 1000), "+inf"}).integer;
  return s;
}

}  // namespace

std::vector<KindStatus> read_farm_status(RedisClient& redis) {
  std::set<std::string> kinds;
  for (const std::string& prefix : {std::string("texc:device:"), std::string("texc:jobs:")})
    for (const std::string& key : scan(redis, prefix + "*")) kinds.insert(key.substr(prefix.size()));
  long long now_ms = broker_now_ms(redis);
  std::vector<KindStatus> out;
  for (const std::string& kind : kinds) out.push_back(kind_status_at(redis, kind, now_ms));
  return out;
}

KindStatus read_kind_progress(RedisClient& redis, const std::string& kind) {
  KindStatus s;
  s.kind = kind;
  long long now_ms = broker_now_ms(redis);
  s.workers.resize(size_t(redis.command({"ZCOUNT", farm_keys::alive(kind), std::to_string(now_ms), "+inf"}).integer));
  const std::string stream = farm_keys::jobs(kind);
  RedisReply pending = redis.command({"XPENDING", stream, farm_keys::group()}, true);  // [count, ...]
  if (pending.kind == RedisReply::Kind::Array && !pending.elements.empty()) s.in_flight = pending.elements[0].integer;
  s.queued = std::max(0LL, redis.command({"XLEN", stream}).integer - s.in_flight);
  s.done = counter(redis, farm_keys::done(kind));
  s.failed = counter(redis, farm_keys::failed(kind));
  s.rejected = counter(redis, farm_keys::rejected(kind));
  s.last_minute = redis.command({"ZCOUNT", farm_keys::finished(kind), std::to_string(now_ms - 60 * 1000), "+inf"}).integer;
  return s;
}

std::string farm_progress_text(const KindStatus& s) {
  return fmt::format("farm {}: {} worker(s), {} queued, {} in flight, {} done ({} failed, {} rejected), {} in the last minute",
                     s.kind, s.workers.size(), s.queued, s.in_flight, s.done, s.failed, s.rejected, s.last_minute);
}

std::string farm_status_text(const std::string& broker_url, const std::vector<KindStatus>& kinds) {
  std::string out = fmt::format("broker {}: {} device kind(s)\n", broker_url, kinds.size());
  for (const KindStatus& s : kinds) {
    std::string workers;
    for (const std::string& w : s.workers) workers += (workers.empty() ? ": " : ", ") + w;
    out += fmt::format("{}  {}\n", s.kind, s.device.empty() ? "(no worker has registered)" : s.device);
    out += fmt::format("  workers   {} alive{}\n", s.workers.size(), workers);
    out += fmt::format("  jobs      {} queued, {} in flight ({} delivered more than once, the oldest idle {:.1f} s)\n",
                       s.queued, s.in_flight, s.redelivered, s.oldest_in_flight_s);
    out += fmt::format("  results   {} done, {} failed, {} rejected, {} reclaimed\n", s.done, s.failed, s.rejected,
                       s.reclaimed);
    out += fmt::format("  rate      {} in the last minute, {:.1f} a minute over the last 10 minutes\n", s.last_minute,
                       double(s.last_10_minutes) / 10);
  }
  return out;
}

std::string farm_status_json(const std::string& broker_url, const std::vector<KindStatus>& kinds) {
  Json j = Json::obj();
  j.set("broker", Json::str(broker_url));
  Json list = Json::arr();
  for (const KindStatus& s : kinds) {
    Json k = Json::obj();
    k.set("kind", Json::str(s.kind));
    k.set("device", Json::str(s.device));
    Json workers = Json::arr();
    for (const std::string& w : s.workers) workers.array.push_back(Json::str(w));
    k.set("workers", workers);
    k.set("queued", Json::num(double(s.queued)));
    k.set("in_flight", Json::num(double(s.in_flight)));
    k.set("redelivered", Json::num(double(s.redelivered)));
    k.set("oldest_in_flight_s", Json::num(s.oldest_in_flight_s));
    k.set("done", Json::num(double(s.done)));
    k.set("failed", Json::num(double(s.failed)));
    k.set("rejected", Json::num(double(s.rejected)));
    k.set("reclaimed", Json::num(double(s.reclaimed)));
    k.set("results_last_minute", Json::num(double(s.last_minute)));
    k.set("results_per_minute_10", Json::num(double(s.last_10_minutes) / 10));
    list.array.push_back(k);
  }
  j.set("kinds", list);
  return j.dump();
}

}  // namespace texc
