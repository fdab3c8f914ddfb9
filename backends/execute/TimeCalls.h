// time_calls: the one way texc times calls on the host — every host Executor's timed rounds
// (Executor.h: the JIT's, which `texc run --target x86`, Module::run and `texc tune`'s x86 runner
// run code through, and the interpreters'), and Module::run's rounds of whole executions on the
// targets whose executors do not time their own calls.
//
// After warm_up (WarmUp.h: 30 ms of untimed calls), `rounds` timed rounds. A round is N calls back
// to back, N chosen once from the time of one call so that a round lasts at least kMinRoundMs
// (1 ms; at most 1000 calls): a call of 2 µs is timed as 500 calls, one of 3 ms alone. Each round
// gives the time of one call (the round's time / N); the result is the median of those, which a
// few rounds disturbed by the machine (an interrupt, another process) do not move. The 1 ms rounds
// keep the clock's resolution and overhead (~20-50 ns a reading) out of short calls (AutoTVM's
// min_repeat_ms, TVM's time_evaluator).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "backends/execute/WarmUp.h"

namespace texc {

/// A round's shortest length, in milliseconds.
inline constexpr double kMinRoundMs = 1.0;

/// The time of one call in each round, and their median (0 when there are no rounds). `label`:
/// "" for host wall-clock time (time_calls), else whose clock measured them, for a report to say
/// ("emulated (qemu-aarch64)", "native", "CUDA events", "simulated (...)": Executor.h).
struct CallTimes {
  std::vector<double> times_ms;
  double median_ms = 0;
  std::string label;
};

/// The median of `values` (the mean of the middle two for an even count; 0 for none).
inline double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// warm_up, then `rounds` rounds of at least kMinRoundMs each (see above).
template <class Call>
CallTimes time_calls(Call&& call, int rounds) {
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  CallTimes result;
  if (rounds <= 0) return result;
  warm_up(call);
  auto start = Clock::now();
  call();
  double first = ms_since(start);
  int number = first >= kMinRoundMs ? 1 : int(std::min(1000.0, std::ceil(kMinRoundMs / std::max(first, 1e-6))));
  for (int r = 0; r < rounds; ++r) {
    start = Clock::now();
    for (int k = 0; k < number; ++k) call();
    result.times_ms.push_back(ms_since(start) / number);
  }
  result.median_ms = median_of(result.times_ms);
  return result;
}

}  // namespace texc
