// CudaDriver: the CUDA driver API (libcuda.so.1) loaded with dlopen, so that nothing links against
// CUDA. Shared by texrt_cuda_launch (CudaLaunch.cpp, what compiled cuda host functions call) and
// `texc run --target cuda` (tools/driver/CudaExecutor.h). C++, internal to texc: programs that use
// compiled ops see only the C API of texrt_cuda.h.
//
// cuda_driver() loads the library once per process (thread-safe): dlopen("libcuda.so.1") — the
// dynamic linker's search, so LD_LIBRARY_PATH can put another library first (the call-sequence
// test's recording shim does) — resolves every entry point below, calls cuInit(0), finds device 0
// and retains its primary context. The outcome is kept: later calls return the same driver or the
// same failure. The declarations are those of cuda.h (CUDA 12/13), repeated so that texrt builds
// without the toolkit; versioned entry points are looked up under their versioned names
// (cuMemAlloc_v2...), as cuda.h's #defines would call them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/texrt_cuda.h"

namespace texrt {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUevent = void*;
using CUstream = void*;

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorNoDevice = 100;
constexpr int kCuFuncAttributeMaxDynamicSharedBytes = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
constexpr int kCuDeviceAttributeComputeMajor = 75;        // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kCuDeviceAttributeComputeMinor = 76;        // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kCuJitErrorLogBuffer = 5;                   // CU_JIT_ERROR_LOG_BUFFER
constexpr int kCuJitErrorLogBufferSizeBytes = 6;          // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
constexpr uint32_t kStaticSharedLimit = 48 * 1024;        // more needs the attribute above

struct CudaDriver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext*);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void**, void**);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);                 // cuMemAlloc_v2
  CUresult (*cuMemFree)(CUdeviceptr);                           // cuMemFree_v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);   // cuMemcpyHtoD_v2
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);         // cuMemcpyDtoH_v2
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);  // split-K's outputs zeroed
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);     // cuEventElapsedTime_v2 where the driver has it
  CUresult (*cuEventDestroy)(CUevent);                          // cuEventDestroy_v2
  CUresult (*cuGetErrorString)(CUresult, const char**);

  CUdevice device = 0;
  CUcontext context = nullptr;  // the primary context of device 0

  /// The driver's name for `r` ("an illegal memory access was encountered"), else its number.
  std::string error_string(CUresult r) const;
};

struct CudaDriverStatus {
  int code = TEXRT_CUDA_SUCCESS;  // TEXRT_CUDA_NO_DEVICE or TEXRT_CUDA_INIT_FAILED on failure
  std::string message;            // why: "no CUDA device: libcuda.so.1 cannot be loaded (...)"
  const CudaDriver* driver = nullptr;  // set when code is TEXRT_CUDA_SUCCESS
};

/// The loaded driver with device 0's primary context retained, or why there is none.
const CudaDriverStatus& cuda_driver();

}  // namespace texrt
