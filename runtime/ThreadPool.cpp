// The thread pool behind texrt_parallel_for.
//
// One process-wide pool of (threads - 1) workers; the calling thread is the remaining one. A parallel
// loop is published as a Job; every thread (workers and caller) takes task indices from the job's
// atomic counter, in chunks of about n / (16 * threads), until none are left, and the caller returns
// once every worker has left the job (it lives on the caller's stack). Parallel loops started inside a
// task, or while another thread owns the pool, run serially on their caller: correct, never a deadlock.
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/texrt.h"

namespace {

struct Job {
  texrt_task_fn fn;
  void* closure;
  int64_t n;
  int64_t chunk;  // tasks taken per visit to the shared counter
  std::atomic<int64_t> next{0};

  void drain() {
    for (int64_t begin = next.fetch_add(chunk); begin < n; begin = next.fetch_add(chunk)) {
      int64_t end = begin + chunk < n ? begin + chunk : n;
      for (int64_t i = begin; i < end; ++i) fn(i, closure);
    }
  }
};

thread_local bool t_inside_parallel_loop = false;

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads) : num_threads_(num_threads < 1 ? 1 : num_threads) {
    for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  int num_threads() const { return num_threads_; }

  void run(Job& job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &job;
      ++generation_;
      workers_in_job_ = int(workers_.size());
    }
    wake_.notify_all();
    t_inside_parallel_loop = true;
    job.drain();
    t_inside_parallel_loop = false;
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return workers_in_job_ == 0; });
    job_ = nullptr;
  }

 private:
  void worker_loop() {
    t_inside_parallel_loop = true;
    uint64_t seen = 0;
    for (;;) {
      Job* job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      job->drain();
      std::lock_guard<std::mutex> lock(mu_);
      if (--workers_in_job_ == 0) done_.notify_one();
    }
  }

  const int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  int workers_in_job_ = 0;
  bool stop_ = false;
};

int default_num_threads() {
  if (const char* env = std::getenv("TEXC_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : int(hw);
}

// Owning g_pool_mutex means owning the pool: one parallel loop at a time, process-wide.
std::mutex g_pool_mutex;
std::unique_ptr<ThreadPool> g_pool;
int g_requested_threads = 0;  // 0: default_num_threads()
std::atomic<int> g_pool_threads{0};  // the pool's size once created, readable without the mutex

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
  Job job{fn, closure, n, chunk < 1 ? 1 : chunk};
  pool.run(job);
}

extern "C" void texrt_set_num_threads(int n) {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  g_requested_threads = n > 0 ? n : 0;
  g_pool.reset();
  g_pool_threads = 0;
}

extern "C" int texrt_get_num_threads(void) {
  if (int n = g_pool_threads.load()) return n;  // also safe inside a parallel loop (mutex held)
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  return pool_locked().num_threads();
}
