// The thread pool behind texrt_parallel_for.
//
// One process-wide pool of (threads - 1) workers; the calling thread is the remaining one. A parallel
// loop is published as a Job. Its n tasks are split into one contiguous range per thread (the
// caller's first); each thread takes chunks of about n / (16 * threads) tasks from the front of its
// own range through the range's atomic counter, then from the other ranges the same way, until none
// are left, and the caller returns once every worker has left the job (it lives on the caller's
// stack). So when the threads keep pace, thread t runs the same tasks in every call of a kernel and
// finds their data in its own caches (on a machine whose cores do not share a last-level cache,
// tasks handed out first-come-first-served moved a conv's data between the caches on every call),
// and a thread that falls behind still has its work taken over, chunk by chunk. Parallel loops
// started inside a task, or while another thread owns the pool, run serially on their caller:
// correct, never a deadlock. Each worker starts on another CPU than its creator's
// (first_cpus_of_workers), then is free to move.
//
// Waking: a job is published by bumping an atomic generation counter. A worker that has just left a
// job spins on that counter (with a pause instruction) for a bounded time, TEXC_SPIN_US microseconds
// (default 50), so that back-to-back short parallel loops do not pay a futex wake-up and a sleep each;
// after that it blocks on a condition variable (idle workers never spin for long: the machine may be
// shared). The caller waits for the workers the same way: a bounded spin, then a condition variable.
// Lost wake-ups are excluded by a Dekker-style handshake on sequentially consistent atomics: a sleeper
// announces itself (sleepers_ / caller_sleeping_) before re-checking the condition under the mutex, and
// the publisher changes the condition before checking for sleepers, notifying under the mutex.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TEXRT_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define TEXRT_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define TEXRT_CPU_RELAX() ((void)0)
#endif

#include "runtime/texrt.h"

namespace {

// One thread's share of a job's tasks, [next, end) as they are taken (next may pass end).
struct alignas(64) TaskRange {
  std::atomic<int64_t> next{0};
  int64_t end = 0;
};

struct Job {
  texrt_task_fn fn;
  void* closure;
  int64_t chunk;       // tasks taken per visit to a range's counter
  TaskRange* ranges;   // one per thread of the pool
  int num_ranges;

  // Thread `self`'s own range first, then the others' (work left by a slower thread).
  void drain(int self) {
    for (int k = 0; k < num_ranges; ++k) {
      TaskRange& r = ranges[(self + k) % num_ranges];
      for (int64_t begin = r.next.fetch_add(chunk); begin < r.end; begin = r.next.fetch_add(chunk)) {
        int64_t end = begin + chunk < r.end ? begin + chunk : r.end;
        for (int64_t i = begin; i < end; ++i) fn(i, closure);
      }
    }
  }
};

thread_local bool t_inside_parallel_loop = false;

int64_t spin_nanoseconds() {
  static const int64_t ns = [] {
    int64_t us = 50;
    if (const char* env = std::getenv("TEXC_SPIN_US")) {
      long v = std::atol(env);
      if (v >= 0) us = v > 10000 ? 10000 : v;  // bounded: never spin for long
    }
    return us * 1000;
  }();
  return ns;
}

// Spins until done() or the spin budget is spent; true when done() became true.
template <typename Pred>
bool spin_until(Pred done) {
  const int64_t budget = spin_nanoseconds();
  if (budget == 0) return done();
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      TEXRT_CPU_RELAX();
    }
    // Let a thread that shares this CPU run (the other side of this wait, when the machine is
    // oversubscribed); on an otherwise idle CPU this returns at once.
    std::this_thread::yield();
    if (std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count() >=
        budget)
      return done();
  }
}

// Where each worker starts. A new thread starts on its creator's CPU, and Linux may leave it there,
// sharing one CPU with the caller while another is idle, for the first 10-20 ms of a process
// (traced on a 2-vCPU VM: the first 30-90 parallel loops of a process ran with both threads on one
// CPU, the caller doing every task). So each worker starts on a CPU of the process's affinity mask
// other than the caller's (round robin when there are fewer) and is then let go (the whole mask
// again): an initial placement, not a pinning. -1: no placement (not Linux, or no mask).
std::vector<int> first_cpus_of_workers(int workers) {
  std::vector<int> cpus(size_t(workers > 0 ? workers : 0), -1);
#if defined(__linux__)
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return cpus;
  int caller = sched_getcpu();
  std::vector<int> others;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask) && c != caller) others.push_back(c);
  if (others.empty()) return cpus;
  for (size_t i = 0; i < cpus.size(); ++i) cpus[i] = others[i % others.size()];
#endif
  return cpus;
}

void start_on_cpu(int cpu) {
#if defined(__linux__)
  if (cpu < 0) return;
  cpu_set_t all, one;
  if (pthread_getaffinity_np(pthread_self(), sizeof all, &all) != 0) return;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) return;  // moves this thread there
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
#else
  (void)cpu;
#endif
}

class ThreadPool {
 public:
  // Starts num_threads - 1 workers, or as many as the system lets it start (a thread that cannot be
  // created is not an error: the pool is smaller, never a crash).
  explicit ThreadPool(int num_threads) {
    int wanted = num_threads < 1 ? 1 : num_threads;
    std::vector<int> cpus = first_cpus_of_workers(wanted - 1);
    for (int i = 1; i < wanted; ++i) {
      try {
        int cpu = cpus[size_t(i - 1)];
        workers_.emplace_back([this, i, cpu] {
          start_on_cpu(cpu);
          worker_loop(i);
        });
      } catch (const std::system_error&) {
        break;
      }
    }
    num_threads_ = int(workers_.size()) + 1;
    ranges_ = std::make_unique<TaskRange[]>(size_t(num_threads_));
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  int num_threads() const { return num_threads_; }

  // Runs tasks [0, n) of fn on every thread, in chunks of `chunk` tasks.
  void run(int64_t n, int64_t chunk, texrt_task_fn fn, void* closure) {
    for (int t = 0; t < num_threads_; ++t) {
      ranges_[t].next.store(n * t / num_threads_, std::memory_order_relaxed);
      ranges_[t].end = n * (t + 1) / num_threads_;
    }
    Job job{fn, closure, chunk, ranges_.get(), num_threads_};
    workers_in_job_.store(int(workers_.size()));
    job_.store(&job);
    generation_.fetch_add(1);  // seq_cst: publishes job_ and orders before the sleepers_ check
    if (sleepers_.load() > 0) {
      { std::lock_guard<std::mutex> lock(mu_); }
      wake_.notify_all();
    }
    t_inside_parallel_loop = true;
    job.drain(0);
    t_inside_parallel_loop = false;
    auto all_left = [this] { return workers_in_job_.load() == 0; };
    if (!spin_until(all_left)) {
      std::unique_lock<std::mutex> lock(mu_);
      // An exchange, not a store: the handshake needs this write ordered before the predicate's
      // read of workers_in_job_, and qemu-aarch64 on an x86 host lets a sequentially consistent
      // store (stlr) pass a later load (ldar) — a worker then missed the sleeping caller and the
      // program hung (stdlib_arm); a read-modify-write is a full fence there too.
      caller_sleeping_.exchange(true);
      done_.wait(lock, all_left);
      caller_sleeping_.store(false);
    }
    job_.store(nullptr);
  }

 private:
  void worker_loop(int self) {
    t_inside_parallel_loop = true;
    uint64_t seen = 0;
    for (;;) {
      auto woken = [&] { return stop_.load() || generation_.load() != seen; };
      if (!spin_until(woken)) {
        std::unique_lock<std::mutex> lock(mu_);
        sleepers_.fetch_add(1);
        wake_.wait(lock, woken);
        sleepers_.fetch_sub(1);
      }
      if (stop_.load()) return;
      seen = generation_.load();
      Job* job = job_.load();
      job->drain(self);
      // After this decrement the job (on the caller's stack) may be gone: touch only the pool.
      if (workers_in_job_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
        { std::lock_guard<std::mutex> lock(mu_); }
        done_.notify_one();
      }
    }
  }

  int num_threads_ = 1;
  std::vector<std::thread> workers_;
  std::unique_ptr<TaskRange[]> ranges_;  // the running job's, one per thread (jobs run one at a time)
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::atomic<Job*> job_{nullptr};
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> workers_in_job_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> caller_sleeping_{false};
  std::atomic<bool> stop_{false};
};

int clamp_threads(long n) { return n > TEXRT_MAX_THREADS ? TEXRT_MAX_THREADS : int(n); }

int default_num_threads() {
  if (const char* env = std::getenv("TEXC_NUM_THREADS")) {
    long n = texrt_parse_num_threads(env);
    if (n > 0) return clamp_threads(n);
    // A library cannot refuse to run: say once that the value is not used.
    static bool warned = false;
    if (!warned)
      std::fprintf(stderr, "texrt: ignoring TEXC_NUM_THREADS='%s' (expected a whole number from 1 to %d)\n", env,
                   TEXRT_MAX_THREADS);
    warned = true;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : clamp_threads(long(hw));
}
// Owning g_pool_mutex means owning the pool: one parallel loop at a time, process-wide.
std::mutex g_pool_mutex;
std::unique_ptr<ThreadPool> g_pool;
int g_requested_threads = 0;  // 0: default_num_threads()
std::atomic<int> g_pool_threads{0};  // the pool's size once created, readable without the mutex

// A forked child has only the thread that forked: the pool's workers are not there, so the child
// abandons the parent's pool (without joining threads it does not have) and starts its own when it
// first needs one. fork() is to be called outside parallel loops (then g_pool_mutex is free).
void abandon_pool_in_child() {
  (void)g_pool.release();
  g_pool_threads = 0;
}
const bool g_atfork_registered = pthread_atfork(nullptr, nullptr, abandon_pool_in_child) == 0;

ThreadPool& pool_locked() {
  if (!g_pool) {
    g_pool = std::make_unique<ThreadPool>(g_requested_threads > 0 ? g_requested_threads : default_num_threads());
    g_pool_threads = g_pool->num_threads();
  }
  return *g_pool;
}

void run_serially(int64_t n, texrt_task_fn fn, void* closure) {
  for (int64_t i = 0; i < n; ++i) fn(i, closure);
}

}  // namespace

extern "C" void texrt_parallel_for(int64_t n, texrt_task_fn fn, void* closure) {
  if (n <= 0) return;
  if (n == 1 || t_inside_parallel_loop) return run_serially(n, fn, closure);
  std::unique_lock<std::mutex> lock(g_pool_mutex, std::try_to_lock);
  if (!lock.owns_lock()) return run_serially(n, fn, closure);
  ThreadPool& pool = pool_locked();
  if (pool.num_threads() == 1) return run_serially(n, fn, closure);
  // About 16 chunks per thread: few trips to the shared counter, still balanced when tasks vary.
  int64_t chunk = n / (int64_t(pool.num_threads()) * 16);
  pool.run(n, chunk < 1 ? 1 : chunk, fn, closure);
}

extern "C" void texrt_set_num_threads(int n) {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  g_requested_threads = n > 0 ? clamp_threads(n) : 0;
  g_pool.reset();
  g_pool_threads = 0;
}

extern "C" int texrt_get_num_threads(void) {
  if (int n = g_pool_threads.load()) return n;  // also safe inside a parallel loop (mutex held)
  // No pool yet: the size it would be started with (starting it here would leave idle threads in a
  // process that may only fork children to run compiled code).
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  return g_requested_threads > 0 ? g_requested_threads : default_num_threads();
}

extern "C" long texrt_parse_num_threads(const char* text) {
  if (!text || !*text) return 0;
  long n = 0;
  for (const char* p = text; *p; ++p) {
    if (*p < '0' || *p > '9') return 0;
    n = n * 10 + (*p - '0');
    if (n > 1000000000L) n = 1000000000L;  // no overflow; far above any limit
  }
  return n;
}
