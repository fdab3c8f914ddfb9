// texrt: the run-time library that code compiled by texc calls (C ABI, no C++ types).
//
// Compiled ops reference these symbols but never define them, so any number of ops' object files
// link into one program together with a single libtexrt.a.
//
//   texrt_parallel_for  runs fn(i, closure) for every i in [0, n) on the thread pool and returns when
//                       all have finished. Tasks may run in any order and concurrently. A call made
//                       from inside a task (nested parallelism) runs its tasks serially on the caller.
//   worker threads      TEXC_NUM_THREADS (read once, at the first parallel loop) or
//                       texrt_set_num_threads(n); default: the hardware concurrency. The calling thread
//                       counts as one of them. At most TEXRT_MAX_THREADS (larger requests are capped);
//                       a TEXC_NUM_THREADS that is not a whole number from 1 up is ignored with a
//                       warning on stderr; when the system refuses to start more threads the pool runs
//                       with those it has. A forked child starts its own pool.
//   texrt_alloc         64-byte aligned memory for heap buffers of compiled code; texrt_free releases it.
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most threads a pool uses.
#define TEXRT_MAX_THREADS 1024

typedef void (*texrt_task_fn)(int64_t task, void* closure);

void texrt_parallel_for(int64_t n, texrt_task_fn fn, void* closure);

/// Sets the number of threads used by parallel loops (n <= 0: the default). Not to be called while
/// a parallel loop runs.
void texrt_set_num_threads(int n);
/// The threads parallel loops use (or will use, when no loop has run yet).
int texrt_get_num_threads(void);
/// The value of a TEXC_NUM_THREADS setting: its number when `text` is a whole number (>= 0, digits
/// only, saturated at 10^9), else 0 (not a thread count).
long texrt_parse_num_threads(const char* text);

/// At least `bytes` bytes aligned to 64, never null: when memory is exhausted it prints
/// "texrt: cannot allocate N bytes ..." on stderr and aborts (compiled code does not check).
void* texrt_alloc(int64_t bytes);
void texrt_free(void* p);

#ifdef __cplusplus
}  // extern "C"
#endif
