// FarmStatus: `texc farm status` (docs/cli.md, docs/tuning.md "A measurement farm") — what a
// farm's broker says about each device kind: the device its workers registered, the workers alive
// (their heartbeat keys), the jobs queued (in the stream, not yet delivered: the workers delete a
// job from the stream once it is acknowledged, so the stream's length less the jobs in flight),
// in flight (delivered, not acknowledged: XPENDING), among them those delivered more than once
// (taken over from a worker that stopped) and the longest a job in flight has been idle, and the
// counters the workers keep: done, failed (not "ok"), rejected, reclaimed, and the results stored
// in the last minute and the last 10 minutes (by the broker's clock). A device kind is one with a
// registered device or a job stream.
#pragma once
#include <string>
#include <vector>

#include "tools/farm/RedisClient.h"

namespace texc {

struct KindStatus {
  std::string kind;
  std::string device;                // as its workers registered it; "" = no worker ever registered
  std::vector<std::string> workers;  // alive: heartbeat keys not expired, sorted
  long long queued = 0, in_flight = 0, redelivered = 0;
  double oldest_in_flight_s = 0;     // the longest idle time of a job in flight
  long long done = 0, failed = 0, rejected = 0, reclaimed = 0;
  long long last_minute = 0, last_10_minutes = 0;  // results stored
};

/// Every device kind of the farm behind `redis`, sorted by name. Throws BrokerError.
std::vector<KindStatus> read_farm_status(RedisClient& redis);

/// What the progress line shows of `kind`, with no SCAN of the broker's keys (a tuner reads it
/// after every batch): the number of workers alive (from farm_keys::alive: `workers` holds that
/// many empty names), queued, in flight, done, failed, rejected, the last minute's results.
KindStatus read_kind_progress(RedisClient& redis, const std::string& kind);

/// One line for `texc tune --broker`'s progress: "farm KIND: 2 worker(s), 0 queued, 3 in flight,
/// 40 done (0 failed, 0 rejected), 40 in the last minute".
std::string farm_progress_text(const KindStatus& s);

/// A few lines per kind, for people.
std::string farm_status_text(const std::string& broker_url, const std::vector<KindStatus>& kinds);
/// One JSON object: {"broker": URL, "kinds": [{"kind": ..., "device": ..., "workers": [...], ...}]}.
std::string farm_status_json(const std::string& broker_url, const std::vector<KindStatus>& kinds);

}  // namespace texc
