// The round trip of a cache line between two CPUs: two threads pinned to CPU A and CPU B hand a
// flag back and forth (A writes 2i+1 and waits for 2i+2, B the reverse). Cores that share a
// last-level cache take tens of ns; cores on different dies or sockets several hundred. On a VM
// the figure changes as the hypervisor moves the vCPUs, and with it what a 2-thread kernel pays
// for data one thread writes and the other reads (docs/performance.md, "This run").
//
//   bench_c2c [--cpus A,B] [--json]      default: the first two CPUs of the process's mask
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

alignas(64) std::atomic<long> g_flag{0};

bool pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s) == 0;
}

// Nanoseconds per round trip, the best of a few trials of `iters` round trips.
double round_trip_ns(int a, int b, long iters) {
  double best = 1e30;
  for (int trial = 0; trial < 5; ++trial) {
    g_flag = 0;
    std::thread other([&] {
      pin(b);
      for (long i = 0; i < iters; ++i) {
        while (g_flag.load(std::memory_order_acquire) != 2 * i + 1) {}
        g_flag.store(2 * i + 2, std::memory_order_release);
      }
    });
    pin(a);
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      g_flag.store(2 * i + 1, std::memory_order_release);
      while (g_flag.load(std::memory_order_acquire) != 2 * i + 2) {}
    }
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / double(iters);
    other.join();
    if (ns < best) best = ns;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int a = -1, b = -1;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json")) json = true;
    else if (!std::strcmp(argv[i], "--cpus") && i + 1 < argc && std::sscanf(argv[i + 1], "%d,%d", &a, &b) == 2) ++i;
    else {
      std::fprintf(stderr, "usage: bench_c2c [--cpus A,B] [--json]\n");
      return 1;
    }
  }
  if (a < 0) {
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) return 1;
    for (int c = 0; c < CPU_SETSIZE && b < 0; ++c)
      if (CPU_ISSET(c, &mask)) (a < 0 ? a : b) = c;
  }
  if (a < 0 || b < 0) {
    std::fprintf(stderr, "bench_c2c: needs two CPUs\n");
    return 2;
  }
  double ns = round_trip_ns(a, b, 20000);
  if (json) std::printf("{\"cpus\": [%d, %d], \"round_trip_ns\": %.1f}\n", a, b, ns);
  else std::printf("CPU %d <-> CPU %d: cache-line round trip %.0f ns\n", a, b, ns);
  return 0;
}
