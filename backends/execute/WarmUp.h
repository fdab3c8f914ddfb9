// Untimed calls before a compiled op is timed. The first calls of an op in a fresh (forked)
// process run slower than its steady state: on the 2-vCPU KVM machine of docs/performance.md a
// 256^3 matmul took 0.27-0.30 ms for about its first 50 calls and 0.21 ms after, at 1 and at 2
// threads (copy-on-write page faults in the child, the thread pool's workers starting, the host
// scheduling the vCPUs). `texc run` and `texc tune` time only after this warm-up, as bench/ does
// (0.2 s there).
#pragma once
#include <chrono>

namespace texc {

/// Milliseconds of untimed calls before timing.
inline constexpr double kWarmUpMs = 30.0;

/// Calls `call` until it has run for `min_ms` milliseconds, at least twice.
template <class Call>
void warm_up(Call&& call, double min_ms = kWarmUpMs) {
  auto start = std::chrono::steady_clock::now();
  for (int calls = 0;; ++calls) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (calls >= 2 && ms >= min_ms) return;
    call();
  }
}

}  // namespace texc
