// texrt_cuda: the run-time half of texc's cuda host functions (texc f.tex --target cuda -o f writes
// f.o, whose functions call these, and f.h). C ABI, no link-time dependency on CUDA: the driver API
// (libcuda.so.1) is loaded with dlopen at the first launch.
//
// texrt_cuda_launch loads the PTX once per `module_cache` (the primary context of device 0, or the
// context current on the calling thread if there is one), looks the kernel up once per
// `function_cache`, launches it on the default stream with `grid` x `block` threads and `shared_bytes`
// of dynamic shared memory, and waits for it (cuCtxSynchronize), so that an error of the kernel is
// the error of this call. Thread-safe. texrt_cuda_alloc and texrt_cuda_free give device memory in
// that context; texrt_cuda_thread_workspace the calling thread's workspace for a graph's entry.
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a cuda host function returns (the generated headers repeat these, under the same guard).
#ifndef TEXRT_CUDA_ERROR_CODES
#define TEXRT_CUDA_ERROR_CODES
enum {
  TEXRT_CUDA_SUCCESS = 0,
  TEXRT_CUDA_NO_DEVICE = 1,      // no driver (libcuda.so.1 cannot be loaded) or no CUDA device
  TEXRT_CUDA_INIT_FAILED = 2,    // the driver failed to initialise or to make a context
  TEXRT_CUDA_MODULE_FAILED = 3,  // the driver rejected the PTX (e.g. a driver older than the PTX)
  TEXRT_CUDA_LAUNCH_FAILED = 4,  // the launch was refused (too many threads, too much shared memory)
  TEXRT_CUDA_KERNEL_FAILED = 5,  // the kernel failed while running (e.g. an invalid device pointer)
};
#endif

int texrt_cuda_launch(void** module_cache, const char* ptx, void** function_cache, const char* kernel_name,
                      const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes, void** args);
/// texrt_cuda_launch without the wait: the kernel is queued on the default stream behind the ones
/// before it (an error of the kernel shows at texrt_cuda_synchronize). What the entry of an op
/// compiled to several kernels launches them with.
int texrt_cuda_launch_async(void** module_cache, const char* ptx, void** function_cache, const char* kernel_name,
                            const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes, void** args);
/// Queues the zeroing of `bytes` bytes (a multiple of 4) of device memory at `ptr` on the default
/// stream, before the next launch: what an op's host function does to the outputs its split-K
/// kernel adds into atomically (docs/cuda.md, "Split-K"). `output` and `kernel_name` name them in
/// the message of a failure. Returns 0 or an error code; it does not wait.
int texrt_cuda_zero_async(void* ptr, uint64_t bytes, const char* output, const char* kernel_name);
/// Waits for every kernel launched in the current context; a failure is TEXRT_CUDA_KERNEL_FAILED
/// with a message naming `op_name`, whose kernels were launched.
int texrt_cuda_synchronize(const char* op_name);

/// Device memory of `bytes` bytes (at least 1) in the context texrt_cuda_launch launches in (for
/// the caller's workspace of an `<op>_with_workspace`, docs/graph.md); *ptr is the device pointer.
/// Returns 0 or an error code.
int texrt_cuda_alloc(void** ptr, uint64_t bytes);
/// Frees what texrt_cuda_alloc returned (null: nothing). Returns 0 or an error code.
int texrt_cuda_free(void* ptr);

/// The calling thread's device workspace of at least `bytes` bytes (at least 1), for the entry of an
/// op compiled to several kernels: allocated in the context texrt_cuda_launch launches in at the
/// thread's first call and kept for its next calls (an inference loop allocates once), replaced by a
/// larger one when a call needs more or when another context is current. *ptr is the device
/// pointer; nothing in it is kept between the calls that use it. Returns 0 or an error code.
int texrt_cuda_thread_workspace(void** ptr, uint64_t bytes);
/// Frees the calling thread's workspace now (the thread's end frees it too). Returns 0 or an error code.
int texrt_cuda_release_workspace(void);

/// A message for `code`: the details of the calling thread's last failure when it failed with that
/// code (e.g. "no CUDA device: libcuda.so.1 cannot be loaded (...)"), else a general description.
const char* texrt_cuda_error_message(int code);

#ifdef __cplusplus
}
#endif
