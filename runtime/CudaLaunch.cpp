// texrt_cuda_launch and texrt_cuda_error_message (texrt_cuda.h): the CUDA driver API through dlopen.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "runtime/texrt_cuda.h"

namespace {

// The few driver API declarations used (cuda.h), so that texrt builds without the CUDA toolkit.
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorNoDevice = 100;
constexpr int kMaxDynamicSharedAttribute = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
constexpr uint32_t kStaticSharedLimit = 48 * 1024;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext*);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                             void**, void**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUcontext context = nullptr;  // the primary context of device 0, once retained
};

std::mutex g_mutex;
Driver g_driver;
int g_driver_state = -1;  // -1 not tried, else the TEXRT_CUDA_ code of loading it
char g_driver_message[512];  // why loading it failed

thread_local int t_last_code = TEXRT_CUDA_SUCCESS;
thread_local char t_last_message[512];

int fail(int code, const char* format, const char* a = "", const char* b = "") {
  t_last_code = code;
  std::snprintf(t_last_message, sizeof t_last_message, format, a, b);
  return code;
}

const char* driver_error(CUresult r) {
  const char* text = nullptr;
  if (g_driver.cuGetErrorString && g_driver.cuGetErrorString(r, &text) == kCudaSuccess && text) return text;
  return "unknown driver error";
}

template <typename F>
bool load_symbol(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  return f != nullptr;
}

// Loads libcuda.so.1 and initialises it; the code of the outcome (called under g_mutex).
int load_driver() {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) return fail(TEXRT_CUDA_NO_DEVICE, "no CUDA device: libcuda.so.1 cannot be loaded (%s)", dlerror());
  Driver& d = g_driver;
  bool ok = load_symbol(library, "cuInit", d.cuInit) && load_symbol(library, "cuDeviceGetCount", d.cuDeviceGetCount) &&
            load_symbol(library, "cuDeviceGet", d.cuDeviceGet) &&
            load_symbol(library, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain) &&
            load_symbol(library, "cuCtxGetCurrent", d.cuCtxGetCurrent) &&
            load_symbol(library, "cuCtxSetCurrent", d.cuCtxSetCurrent) &&
            load_symbol(library, "cuCtxSynchronize", d.cuCtxSynchronize) &&
            load_symbol(library, "cuModuleLoadData", d.cuModuleLoadData) &&
            load_symbol(library, "cuModuleGetFunction", d.cuModuleGetFunction) &&
            load_symbol(library, "cuFuncSetAttribute", d.cuFuncSetAttribute) &&
            load_symbol(library, "cuLaunchKernel", d.cuLaunchKernel) &&
            load_symbol(library, "cuGetErrorString", d.cuGetErrorString);
  if (!ok) return fail(TEXRT_CUDA_INIT_FAILED, "the CUDA driver lacks a function texrt needs (%s)", dlerror());
  CUresult r = d.cuInit(0);
  if (r == kCudaErrorNoDevice) return fail(TEXRT_CUDA_NO_DEVICE, "no CUDA device (%s)", driver_error(r));
  if (r != kCudaSuccess) return fail(TEXRT_CUDA_INIT_FAILED, "cuInit failed: %s", driver_error(r));
  int count = 0;
  if (d.cuDeviceGetCount(&count) != kCudaSuccess || count == 0)
    return fail(TEXRT_CUDA_NO_DEVICE, "no CUDA device (the driver reports none)");
  CUdevice device = 0;
  if ((r = d.cuDeviceGet(&device, 0)) != kCudaSuccess || (r = d.cuDevicePrimaryCtxRetain(&d.context, device)) != kCudaSuccess)
    return fail(TEXRT_CUDA_INIT_FAILED, "cannot create a context on CUDA device 0: %s", driver_error(r));
  return TEXRT_CUDA_SUCCESS;
}

// Makes a context current on this thread: the caller's if it has one, else device 0's primary one.
int make_context_current() {
  CUcontext current = nullptr;
  if (g_driver.cuCtxGetCurrent(&current) == kCudaSuccess && current) return TEXRT_CUDA_SUCCESS;
  CUresult r = g_driver.cuCtxSetCurrent(g_driver.context);
  if (r != kCudaSuccess) return fail(TEXRT_CUDA_INIT_FAILED, "cannot make the CUDA context current: %s", driver_error(r));
  return TEXRT_CUDA_SUCCESS;
}

}  // namespace

extern "C" int texrt_cuda_launch(void** module_cache, const char* ptx, void** function_cache, const char* kernel_name,
                                 const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes, void** args) {
  CUfunction function = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_driver_state < 0) {
      g_driver_state = load_driver();
      if (g_driver_state != TEXRT_CUDA_SUCCESS) std::memcpy(g_driver_message, t_last_message, sizeof g_driver_message);
    }
    if (g_driver_state != TEXRT_CUDA_SUCCESS) return fail(g_driver_state, "%s", g_driver_message);
    if (int code = make_context_current()) return code;
    CUresult r;
    if (!*module_cache && (r = g_driver.cuModuleLoadData(module_cache, ptx)) != kCudaSuccess) {
      *module_cache = nullptr;
      return fail(TEXRT_CUDA_MODULE_FAILED, "the CUDA driver rejected the PTX: %s", driver_error(r));
    }
    if (!*function_cache) {
      if ((r = g_driver.cuModuleGetFunction(function_cache, *module_cache, kernel_name)) != kCudaSuccess) {
        *function_cache = nullptr;
        return fail(TEXRT_CUDA_MODULE_FAILED, "kernel %s not found in the PTX: %s", kernel_name, driver_error(r));
      }
      if (shared_bytes > kStaticSharedLimit &&
          (r = g_driver.cuFuncSetAttribute(*function_cache, kMaxDynamicSharedAttribute, int(shared_bytes))) != kCudaSuccess)
        return fail(TEXRT_CUDA_LAUNCH_FAILED, "kernel %s cannot have that much shared memory: %s", kernel_name,
                    driver_error(r));
    }
    function = *function_cache;
  }
  CUresult r = g_driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes,
                                       nullptr, args, nullptr);
  if (r != kCudaSuccess) return fail(TEXRT_CUDA_LAUNCH_FAILED, "launch of kernel %s failed: %s", kernel_name, driver_error(r));
  if ((r = g_driver.cuCtxSynchronize()) != kCudaSuccess)
    return fail(TEXRT_CUDA_KERNEL_FAILED, "kernel %s failed: %s", kernel_name, driver_error(r));
  t_last_code = TEXRT_CUDA_SUCCESS;
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
