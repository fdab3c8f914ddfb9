// texrt_cuda_launch, texrt_cuda_alloc, texrt_cuda_free and texrt_cuda_error_message (texrt_cuda.h): the CUDA driver API through
// dlopen (CudaDriver.h).
#include <cstdio>
#include <cstring>
#include <string>
#include <mutex>

#include "runtime/CudaDriver.h"
#include "runtime/texrt_cuda.h"

using namespace texrt;

namespace {

std::mutex g_mutex;  // guards the module and function caches of the callers

thread_local int t_last_code = TEXRT_CUDA_SUCCESS;
thread_local char t_last_message[512];

int fail(int code, const std::string& message) {
  t_last_code = code;
  std::snprintf(t_last_message, sizeof t_last_message, "%s", message.c_str());
  return code;
}

// Makes a context current on this thread: the caller's if it has one, else device 0's primary one.
int make_context_current(const CudaDriver& d) {
  CUcontext current = nullptr;
  if (d.cuCtxGetCurrent(&current) == kCudaSuccess && current) return TEXRT_CUDA_SUCCESS;
  CUresult r = d.cuCtxSetCurrent(d.context);
  if (r != kCudaSuccess) return fail(TEXRT_CUDA_INIT_FAILED, "cannot make the CUDA context current: " + d.error_string(r));
  return TEXRT_CUDA_SUCCESS;
}

}  // namespace

extern "C" int texrt_cuda_launch(void** module_cache, const char* ptx, void** function_cache, const char* kernel_name,
                                 const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes, void** args) {
  const CudaDriverStatus& status = cuda_driver();
  if (status.code != TEXRT_CUDA_SUCCESS) return fail(status.code, status.message);
  const CudaDriver& d = *status.driver;
  std::string name = kernel_name;
  CUfunction function = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (int code = make_context_current(d)) return code;
    CUresult r;
    if (!*module_cache && (r = d.cuModuleLoadData(module_cache, ptx)) != kCudaSuccess) {
      *module_cache = nullptr;
      return fail(TEXRT_CUDA_MODULE_FAILED, "the CUDA driver rejected the PTX: " + d.error_string(r));
    }
    if (!*function_cache) {
      if ((r = d.cuModuleGetFunction(function_cache, *module_cache, kernel_name)) != kCudaSuccess) {
        *function_cache = nullptr;
        return fail(TEXRT_CUDA_MODULE_FAILED, "kernel " + name + " not found in the PTX: " + d.error_string(r));
      }
      if (shared_bytes > kStaticSharedLimit &&
          (r = d.cuFuncSetAttribute(*function_cache, kCuFuncAttributeMaxDynamicSharedBytes, int(shared_bytes))) !=
              kCudaSuccess)
        return fail(TEXRT_CUDA_LAUNCH_FAILED,
                    "kernel " + name + " cannot have that much shared memory: " + d.error_string(r));
    }
    function = *function_cache;
  }
  CUresult r = d.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes, nullptr,
                                args, nullptr);
  if (r != kCudaSuccess) return fail(TEXRT_CUDA_LAUNCH_FAILED, "launch of kernel " + name + " failed: " + d.error_string(r));
  if ((r = d.cuCtxSynchronize()) != kCudaSuccess)
    return fail(TEXRT_CUDA_KERNEL_FAILED, "kernel " + name + " failed: " + d.error_string(r));
  t_last_code = TEXRT_CUDA_SUCCESS;
  return TEXRT_CUDA_SUCCESS;
}

extern "C" int texrt_cuda_alloc(void** ptr, uint64_t bytes) {
  *ptr = nullptr;
  const CudaDriverStatus& status = cuda_driver();
  if (status.code != TEXRT_CUDA_SUCCESS) return fail(status.code, status.message);
  const CudaDriver& d = *status.driver;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (int code = make_context_current(d)) return code;
  }
  CUdeviceptr p = 0;
  if (CUresult r = d.cuMemAlloc(&p, bytes ? size_t(bytes) : 1); r != kCudaSuccess)
    return fail(TEXRT_CUDA_LAUNCH_FAILED,
                "cannot allocate " + std::to_string(bytes) + " bytes of device memory: " + d.error_string(r));
  *ptr = reinterpret_cast<void*>(uintptr_t(p));
  t_last_code = TEXRT_CUDA_SUCCESS;
  return TEXRT_CUDA_SUCCESS;
}

extern "C" int texrt_cuda_free(void* ptr) {
  if (!ptr) return TEXRT_CUDA_SUCCESS;
  const CudaDriverStatus& status = cuda_driver();
  if (status.code != TEXRT_CUDA_SUCCESS) return fail(status.code, status.message);
  const CudaDriver& d = *status.driver;
  if (CUresult r = d.cuMemFree(CUdeviceptr(uintptr_t(ptr))); r != kCudaSuccess)
    return fail(TEXRT_CUDA_KERNEL_FAILED, "cannot free device memory: " + d.error_string(r));
  return TEXRT_CUDA_SUCCESS;
}

extern "C" const char* texrt_cuda_error_message(int code) {
  if (code != TEXRT_CUDA_SUCCESS && code == t_last_code) return t_last_message;
  switch (code) {
    case TEXRT_CUDA_SUCCESS: return "success";
    case TEXRT_CUDA_NO_DEVICE: return "no CUDA device";
    case TEXRT_CUDA_INIT_FAILED: return "the CUDA driver failed to initialise";
    case TEXRT_CUDA_MODULE_FAILED: return "the CUDA driver rejected the PTX";
    case TEXRT_CUDA_LAUNCH_FAILED: return "the kernel launch failed";
    case TEXRT_CUDA_KERNEL_FAILED: return "the kernel failed while running";
    default: return "unknown texrt_cuda error code";
  }
}
