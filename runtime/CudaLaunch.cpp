// texrt_cuda_launch(_async), texrt_cuda_zero_async, texrt_cuda_synchronize, texrt_cuda_alloc, texrt_cuda_free,
// texrt_cuda_thread_workspace, texrt_cuda_release_workspace and texrt_cuda_error_message (texrt_cuda.h): the CUDA driver API through
// dlopen (CudaDriver.h); modules loaded, kernels found and launched by CudaKernel.h.
#include <cstdio>
#include <cstring>
#include <string>
#include <mutex>

#include "runtime/CudaDriver.h"
#include "runtime/CudaKernel.h"
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

/// `status` as this thread's last failure; returns its code.
int fail(const CudaStatus& status) { return fail(status.code, status.message); }

/// The calling thread's device workspace (texrt_cuda_thread_workspace): freed, in the context it was
/// allocated in, when replaced, released, or when the thread ends.
struct ThreadWorkspace {
  CUcontext context = nullptr;
  CUdeviceptr pointer = 0;
  uint64_t bytes = 0;

  /// Frees it (nothing when there is none); 0 or an error code.
  int release() {
    if (!pointer) return TEXRT_CUDA_SUCCESS;
    const CudaDriver& d = *cuda_driver().driver;  // there is a pointer: the driver was loaded
    CUcontext current = nullptr;
    d.cuCtxGetCurrent(&current);
    if (current != context) d.cuCtxSetCurrent(context);
    CUresult r = d.cuMemFree(pointer);
    if (current != context) d.cuCtxSetCurrent(current);
    pointer = 0;
    bytes = 0;
    if (r != kCudaSuccess) return fail(TEXRT_CUDA_KERNEL_FAILED, "cannot free device memory: " + d.error_string(r));
    return TEXRT_CUDA_SUCCESS;
  }
  ~ThreadWorkspace() { release(); }
};

thread_local ThreadWorkspace t_workspace;

}  // namespace

extern "C" int texrt_cuda_launch_async(void** module_cache, const char* ptx, void** function_cache,
                                       const char* kernel_name, const uint32_t grid[3], const uint32_t block[3],
                                       uint32_t shared_bytes, void** args) {
  const CudaDriverStatus& status = cuda_driver();
  if (status.code != TEXRT_CUDA_SUCCESS) return fail(status.code, status.message);
  const CudaDriver& d = *status.driver;
  std::string name = kernel_name;
  CUfunction function = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (CudaStatus s = make_context_current(d); !s.ok()) return fail(s);
    if (!*module_cache)
      if (CudaStatus s = load_module(d, ptx, "", module_cache); !s.ok()) return fail(s);
    if (!*function_cache)
      if (CudaStatus s = find_kernel(d, *module_cache, kernel_name, shared_bytes, name, function_cache); !s.ok()) {
        *function_cache = nullptr;
        return fail(s);
      }
    function = *function_cache;
  }
  if (CudaStatus s = launch_kernel(d, function, grid, block, shared_bytes, args, name); !s.ok()) return fail(s);
  t_last_code = TEXRT_CUDA_SUCCESS;
  return TEXRT_CUDA_SUCCESS;
}

extern "C" int texrt_cuda_launch(void** module_cache, const char* ptx, void** function_cache, const char* kernel_name,
                                 const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes, void** args) {
  if (int code = texrt_cuda_launch_async(module_cache, ptx, function_cache, kernel_name, grid, block, shared_bytes, args);
      code != TEXRT_CUDA_SUCCESS)
    return code;
  const CudaDriver& d = *cuda_driver().driver;
  if (CUresult r = d.cuCtxSynchronize(); r != kCudaSuccess)
    return fail(TEXRT_CUDA_KERNEL_FAILED, "kernel " + std::string(kernel_name) + " failed: " + d.error_string(r));
  return TEXRT_CUDA_SUCCESS;
}

extern "C" int texrt_cuda_zero_async(void* ptr, uint64_t bytes, const char* output, const char* kernel_name) {
  const CudaDriverStatus& status = cuda_driver();
  if (status.code != TEXRT_CUDA_SUCCESS) return fail(status.code, status.message);
  const CudaDriver& d = *status.driver;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (CudaStatus s = make_context_current(d); !s.ok()) return fail(s);
  }
  if (CudaStatus s = zero_output(d, CUdeviceptr(uintptr_t(ptr)), bytes, output, kernel_name); !s.ok()) return fail(s);
  t_last_code = TEXRT_CUDA_SUCCESS;
  return TEXRT_CUDA_SUCCESS;
}

extern "C" int texrt_cuda_synchronize(const char* op_name) {
  const CudaDriverStatus& status = cuda_driver();
  if (status.code != TEXRT_CUDA_SUCCESS) return fail(status.code, status.message);
  const CudaDriver& d = *status.driver;
  if (CUresult r = d.cuCtxSynchronize(); r != kCudaSuccess)
    return fail(TEXRT_CUDA_KERNEL_FAILED,
                "a kernel of " + std::string(op_name) + " failed: " + d.error_string(r) +
                    " (the entry launches its kernels without waiting between them; their own functions " +
                    op_name + "_k0, ... each launch one and wait, which tells which)");
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
    if (CudaStatus s = make_context_current(d); !s.ok()) return fail(s);
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

extern "C" int texrt_cuda_thread_workspace(void** ptr, uint64_t bytes) {
  *ptr = nullptr;
  const CudaDriverStatus& status = cuda_driver();
  if (status.code != TEXRT_CUDA_SUCCESS) return fail(status.code, status.message);
  const CudaDriver& d = *status.driver;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (CudaStatus s = make_context_current(d); !s.ok()) return fail(s);
  }
  CUcontext current = nullptr;
  d.cuCtxGetCurrent(&current);
  if (!t_workspace.pointer || t_workspace.context != current || t_workspace.bytes < bytes) {
    if (int code = t_workspace.release(); code != TEXRT_CUDA_SUCCESS) return code;
    void* fresh = nullptr;
    if (int code = texrt_cuda_alloc(&fresh, bytes); code != TEXRT_CUDA_SUCCESS) return code;
    t_workspace = {current, CUdeviceptr(uintptr_t(fresh)), bytes};
  }
  *ptr = reinterpret_cast<void*>(uintptr_t(t_workspace.pointer));
  t_last_code = TEXRT_CUDA_SUCCESS;
  return TEXRT_CUDA_SUCCESS;
}

extern "C" int texrt_cuda_release_workspace(void) { return t_workspace.release(); }

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
