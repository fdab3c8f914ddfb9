// The machine's fp32 FMA peak, measured: each thread runs chains of independent FMAs
// (acc = acc * a + b) on NACC vector accumulators, for AVX2 (ymm) and AVX-512 (zmm) where the CPU
// has them, at 1..--threads threads pinned to distinct CPUs. FLOPs: 2 per lane per FMA.
// Reported per ISA and thread count: the best accumulator count, the best of --repeat trials.
//
//   bench_peak [--threads N] [--repeat N] [--json]
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

// Short trials (~1-3 ms), many of them, best taken: on a shared machine a short trial often runs
// without being preempted, where a long one almost never does.
constexpr long kIters = 1'000'000;

template <int NACC>
__attribute__((target("avx2,fma"))) float fma_ymm(long iters) {
  __m256 acc[NACC];
  for (int k = 0; k < NACC; ++k) acc[k] = _mm256_set1_ps(float(k) * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
  for (long i = 0; i < iters; ++i)
    for (int k = 0; k < NACC; ++k) acc[k] = _mm256_fmadd_ps(acc[k], a, b);
  __m256 s = acc[0];
  for (int k = 1; k < NACC; ++k) s = _mm256_add_ps(s, acc[k]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}

template <int NACC>
__attribute__((target("avx512f"))) float fma_zmm(long iters) {
  __m512 acc[NACC];
  for (int k = 0; k < NACC; ++k) acc[k] = _mm512_set1_ps(float(k) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
  for (long i = 0; i < iters; ++i)
    for (int k = 0; k < NACC; ++k) acc[k] = _mm512_fmadd_ps(acc[k], a, b);
  __m512 s = acc[0];
  for (int k = 1; k < NACC; ++k) s = _mm512_add_ps(s, acc[k]);
  float out[16];
  _mm512_storeu_ps(out, s);
  return out[0];
}

struct Kernel {
  std::string isa;
  int lanes, nacc;
  float (*fn)(long);
};

std::atomic<float> sink{0};

// Runs `k` on `threads` threads pinned to CPUs 0..threads-1; returns GFLOP/s.
double run(const Kernel &k, int threads) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  std::vector<double> secs(threads);
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(t % std::max(1u, std::thread::hardware_concurrency()), &set);
      pthread_setaffinity_np(pthread_self(), sizeof set, &set);
      ready++;
      while (!go) std::this_thread::yield();
      auto t0 = std::chrono::steady_clock::now();
      sink = sink + k.fn(kIters);
      secs[t] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
  }
  while (ready < threads) std::this_thread::yield();
  go = true;
  for (auto &th : pool) th.join();
  double slowest = *std::max_element(secs.begin(), secs.end());
  return 2.0 * k.lanes * k.nacc * double(kIters) * threads / slowest / 1e9;
}

}  // namespace

int main(int argc, char **argv) {
  int max_threads = 2, repeat = 100;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) max_threads = std::atoi(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--json") json = true;
    else {
      std::fprintf(stderr, "usage: bench_peak [--threads N] [--repeat N] [--json]\n");
      return 2;
    }
  }
  std::vector<Kernel> kernels;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    kernels.push_back({"avx2_ymm", 8, 8, fma_ymm<8>});
    kernels.push_back({"avx2_ymm", 8, 12, fma_ymm<12>});
    kernels.push_back({"avx2_ymm", 8, 16, fma_ymm<16>});
  }
  if (__builtin_cpu_supports("avx512f")) {
    kernels.push_back({"avx512_zmm", 16, 8, fma_zmm<8>});
    kernels.push_back({"avx512_zmm", 16, 12, fma_zmm<12>});
    kernels.push_back({"avx512_zmm", 16, 16, fma_zmm<16>});
  }
  for (int threads = 1; threads <= max_threads; ++threads) {
    for (const std::string isa : {"avx2_ymm", "avx512_zmm"}) {
      double best = 0;
      int best_acc = 0;
      for (const Kernel &k : kernels) {
        if (k.isa != isa) continue;
        for (int r = 0; r < repeat; ++r) {
          double g = run(k, threads);
          if (g > best) best = g, best_acc = k.nacc;
        }
      }
      if (best_acc == 0) continue;
      if (json)
        std::printf("{\"workload\":\"peak\",\"peer\":\"peak\",\"variant\":\"%s\",\"threads\":%d,"
                    "\"gflops\":%.2f,\"accumulators\":%d,\"trials\":%d}\n",
                    isa.c_str(), threads, best, best_acc, repeat);
      else
        std::printf("fp32 FMA peak %-10s %d thread(s): %7.1f GFLOP/s (best of %d trials, %d accumulators)\n",
                    isa.c_str(), threads, best, repeat, best_acc);
      std::fflush(stdout);
    }
  }
  return 0;
}
