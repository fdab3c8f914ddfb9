// Unit tests of runtime/texrt.h that do not need compiled code: thread counts (parsing
// TEXC_NUM_THREADS, the cap), how a parallel loop hands out its tasks (each once; every thread
// starts on its own contiguous range; a thread blocked in a task does not hold up the others), a
// new pool's worker placed on another CPU than the caller's, a forked child running parallel loops
// with its own pool, a pool that cannot start every thread it was asked for, and texrt_alloc's
// failure message.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "runtime/texrt.h"

namespace {

std::atomic<int64_t> g_sum{0};
void add_task(int64_t task, void*) { g_sum += task; }

/// Runs a parallel loop over [0, n) and returns whether every task ran once.
bool parallel_sum_ok(int64_t n) {
  g_sum = 0;
  texrt_parallel_for(n, add_task, nullptr);
  return g_sum == n * (n - 1) / 2;
}

/// Runs `body` in a forked child (limited to 20 s) and returns its wait status.
template <typename F>
int in_child(F body) {
  pid_t pid = fork();
  if (pid == 0) {
    alarm(20);
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

}  // namespace

// RLIMIT_AS cannot be lowered under AddressSanitizer (its shadow memory is terabytes of address
// space): the address-space cases run in the plain build only.
#if defined(__SANITIZE_ADDRESS__)
#define TEXC_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEXC_UNDER_ASAN 1
#endif
#endif
#ifdef TEXC_UNDER_ASAN
constexpr bool kAddressLimitsWork = false;
#else
constexpr bool kAddressLimitsWork = true;
#endif

TEST_CASE("TEXC_NUM_THREADS values: whole numbers only") {
  CHECK(texrt_parse_num_threads("8") == 8);
  CHECK(texrt_parse_num_threads("1024") == 1024);
  CHECK(texrt_parse_num_threads("abc") == 0);
  CHECK(texrt_parse_num_threads("-1") == 0);
  CHECK(texrt_parse_num_threads("0") == 0);
  CHECK(texrt_parse_num_threads("") == 0);
  CHECK(texrt_parse_num_threads("4x") == 0);
  CHECK(texrt_parse_num_threads("99999999999999999999") == 1000000000);
}

TEST_CASE("thread counts are capped at TEXRT_MAX_THREADS") {
  texrt_set_num_threads(100000);
  CHECK(texrt_get_num_threads() == TEXRT_MAX_THREADS);
  texrt_set_num_threads(3);
  CHECK(texrt_get_num_threads() == 3);
}

TEST_CASE("every task of a parallel loop runs once, for any task count and thread count") {
  for (int threads : {1, 2, 3, 8}) {
    texrt_set_num_threads(threads);
    for (int64_t n : {1, 2, 3, 7, 16, 31, 64, 1000, 4099})
      CHECK_MESSAGE(parallel_sum_ok(n), threads << " threads, " << n << " tasks");
  }
}

namespace {

// Waits up to 5 s for `flag`; true when it was set.
bool wait_for(const std::atomic<bool>& flag) {
  auto start = std::chrono::steady_clock::now();
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) return false;
    std::this_thread::yield();
  }
  return true;
}

struct BlockProbe {
  std::atomic<bool> task3_done{false};
  std::atomic<int> runs[4] = {};
  std::atomic<bool> timed_out{false};
};

struct RangeProbe {
  std::thread::id caller;
  std::atomic<int64_t> first_on_worker{-1};
  std::atomic<bool> worker_started{false};
  std::atomic<int> runs[4] = {};
  std::atomic<bool> timed_out{false};
};

struct CpuProbe {
  std::atomic<int> cpu[2] = {-1, -1};
  std::atomic<bool> worker_ran{false}, timed_out{false};
};

int cpus_of_process() {
  cpu_set_t mask;
  return sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : 1;
}

}  // namespace

TEST_CASE("a thread blocked in a task does not hold up the tasks after it") {
  texrt_set_num_threads(2);
  BlockProbe probe;
  texrt_parallel_for(4, [](int64_t task, void* closure) {
    auto& p = *static_cast<BlockProbe*>(closure);
    p.runs[task]++;
    if (task == 3) p.task3_done = true;
    // Whoever runs task 2 waits for task 3: only another thread can run it.
    if (task == 2 && !wait_for(p.task3_done)) p.timed_out = true;
  }, &probe);
  CHECK_FALSE(probe.timed_out);
  for (auto& r : probe.runs) CHECK(r == 1);
}

TEST_CASE("with 2 threads and 4 tasks, the worker starts on its own range (task 2), not on the caller's next task") {
  texrt_set_num_threads(2);
  RangeProbe probe;
  probe.caller = std::this_thread::get_id();
  texrt_parallel_for(4, [](int64_t task, void* closure) {
    auto& p = *static_cast<RangeProbe*>(closure);
    p.runs[task]++;
    if (std::this_thread::get_id() != p.caller) {
      int64_t none = -1;
      p.first_on_worker.compare_exchange_strong(none, task);
      p.worker_started = true;
    } else if (task == 0 && !wait_for(p.worker_started)) {
      p.timed_out = true;  // the caller holds task 0 until the worker has begun
    }
  }, &probe);
  CHECK_FALSE(probe.timed_out);
  CHECK(probe.first_on_worker == 2);
  for (auto& r : probe.runs) CHECK(r == 1);
}

TEST_CASE("a new pool's worker starts on another CPU than the caller's") {
  if (cpus_of_process() < 2) return;  // nothing to place it on
  // Before the initial placement, the first ~100 loops of every process ran both threads on one
  // CPU (20 processes of 20 on a 2-vCPU VM). Each round starts a fresh pool; both tasks run at once.
  int apart = 0;
  for (int round = 0; round < 5; ++round) {
    texrt_set_num_threads(2);
    CpuProbe probe;
    texrt_parallel_for(2, [](int64_t task, void* closure) {
      auto& p = *static_cast<CpuProbe*>(closure);
      p.cpu[task] = sched_getcpu();
      if (task == 1) p.worker_ran = true;
      else if (!wait_for(p.worker_ran)) p.timed_out = true;  // task 0 (the caller's) waits for task 1
    }, &probe);
    CHECK_FALSE(probe.timed_out);
    apart += probe.cpu[0] != probe.cpu[1];
  }
  CHECK(apart >= 3);
}

TEST_CASE("a forked child runs parallel loops with its own pool (the parent's workers are not there)") {
  texrt_set_num_threads(4);
  REQUIRE(parallel_sum_ok(10000));  // the parent's pool now exists, with 3 workers
  int status = in_child([] { return parallel_sum_ok(10000) && parallel_sum_ok(777); });
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(parallel_sum_ok(5000));  // the parent's pool still works
}

TEST_CASE("a pool that cannot start every thread runs with those it has") {
  if (!kAddressLimitsWork) return;
  int status = in_child([] {
    rlimit limit{size_t(512) << 20, size_t(512) << 20};  // 512 MiB: not 1023 thread stacks of 8 MiB
    if (setrlimit(RLIMIT_AS, &limit) != 0) return false;
    texrt_set_num_threads(TEXRT_MAX_THREADS);
    return parallel_sum_ok(100000);
  });
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("texrt_alloc: aligned memory, or a message and an abort when there is none") {
  void* p = texrt_alloc(100);
  CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
  texrt_free(p);
  if (!kAddressLimitsWork) return;
  int status = in_child([] {
    rlimit limit{size_t(256) << 20, size_t(256) << 20};
    if (setrlimit(RLIMIT_AS, &limit) != 0) return false;
    std::freopen("/dev/null", "w", stderr);
    return texrt_alloc(int64_t(1) << 40) != nullptr;
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
}
