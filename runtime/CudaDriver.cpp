// cuda_driver (CudaDriver.h): dlopen libcuda.so.1, resolve the entry points, initialise device 0.
#include "runtime/CudaDriver.h"

#include <dlfcn.h>

#include <mutex>

namespace texrt {

namespace {

template <typename F>
bool load_symbol(void* library, const char* name, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(library, name));
  if (!f && missing.empty()) missing = name;
  return f != nullptr;
}

CudaDriverStatus failure(int code, std::string message) {
  CudaDriverStatus status;
  status.code = code;
  status.message = std::move(message);
  return status;
}

CudaDriverStatus load(CudaDriver& d) {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return failure(TEXRT_CUDA_NO_DEVICE, std::string("no CUDA device: libcuda.so.1 cannot be loaded (") + dlerror() + ")");
  std::string missing;
  load_symbol(library, "cuInit", d.cuInit, missing);
  load_symbol(library, "cuDeviceGetCount", d.cuDeviceGetCount, missing);
  load_symbol(library, "cuDeviceGet", d.cuDeviceGet, missing);
  load_symbol(library, "cuDeviceGetName", d.cuDeviceGetName, missing);
  load_symbol(library, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, missing);
  load_symbol(library, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, missing);
  load_symbol(library, "cuCtxGetCurrent", d.cuCtxGetCurrent, missing);
  load_symbol(library, "cuCtxSetCurrent", d.cuCtxSetCurrent, missing);
  load_symbol(library, "cuCtxSynchronize", d.cuCtxSynchronize, missing);
  load_symbol(library, "cuModuleLoadDataEx", d.cuModuleLoadDataEx, missing);
  load_symbol(library, "cuModuleUnload", d.cuModuleUnload, missing);
  load_symbol(library, "cuModuleGetFunction", d.cuModuleGetFunction, missing);
  load_symbol(library, "cuFuncSetAttribute", d.cuFuncSetAttribute, missing);
  load_symbol(library, "cuLaunchKernel", d.cuLaunchKernel, missing);
  load_symbol(library, "cuMemAlloc_v2", d.cuMemAlloc, missing);
  load_symbol(library, "cuMemFree_v2", d.cuMemFree, missing);
  load_symbol(library, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD, missing);
  load_symbol(library, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH, missing);
  load_symbol(library, "cuMemsetD32Async", d.cuMemsetD32Async, missing);
  load_symbol(library, "cuEventCreate", d.cuEventCreate, missing);
  load_symbol(library, "cuEventRecord", d.cuEventRecord, missing);
  load_symbol(library, "cuEventSynchronize", d.cuEventSynchronize, missing);
  load_symbol(library, "cuEventDestroy_v2", d.cuEventDestroy, missing);
  load_symbol(library, "cuGetErrorString", d.cuGetErrorString, missing);
  // CUDA 12.8 renamed the timing function (same signature); older drivers have only the first name.
  std::string elapsed_missing;
  if (!load_symbol(library, "cuEventElapsedTime_v2", d.cuEventElapsedTime, elapsed_missing))
    load_symbol(library, "cuEventElapsedTime", d.cuEventElapsedTime, missing);
  if (!missing.empty())
    return failure(TEXRT_CUDA_INIT_FAILED, "the CUDA driver (libcuda.so.1) lacks " + missing + ", which texrt needs");

  CUresult r = d.cuInit(0);
  if (r == kCudaErrorNoDevice) return failure(TEXRT_CUDA_NO_DEVICE, "no CUDA device (" + d.error_string(r) + ")");
  if (r != kCudaSuccess) return failure(TEXRT_CUDA_INIT_FAILED, "cuInit failed: " + d.error_string(r));
  int count = 0;
  if (d.cuDeviceGetCount(&count) != kCudaSuccess || count == 0)
    return failure(TEXRT_CUDA_NO_DEVICE, "no CUDA device (the driver reports none)");
  if ((r = d.cuDeviceGet(&d.device, 0)) != kCudaSuccess || (r = d.cuDevicePrimaryCtxRetain(&d.context, d.device)) != kCudaSuccess)
    return failure(TEXRT_CUDA_INIT_FAILED, "cannot create a context on CUDA device 0: " + d.error_string(r));
  CudaDriverStatus status;
  status.driver = &d;
  return status;
}

}  // namespace

std::string CudaDriver::error_string(CUresult r) const {
  const char* text = nullptr;
  if (cuGetErrorString && cuGetErrorString(r, &text) == kCudaSuccess && text) return text;
  return "CUDA error " + std::to_string(r);
}

const CudaDriverStatus& cuda_driver() {
  static CudaDriver driver;
  static CudaDriverStatus status;
  static std::once_flag once;
  std::call_once(once, [] { status = load(driver); });
  return status;
}

}  // namespace texrt
