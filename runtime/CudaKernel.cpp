#include "runtime/CudaKernel.h"

#include <cstring>

namespace texrt {

namespace {

CudaStatus failure(int code, std::string message) { return CudaStatus{code, std::move(message)}; }

std::string dims_text(const uint32_t dims[3]) {
  return std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
}

}  // namespace

CudaStatus make_context_current(const CudaDriver& d) {
  CUcontext current = nullptr;
  if (d.cuCtxGetCurrent(&current) == kCudaSuccess && current) return {};
  if (CUresult r = d.cuCtxSetCurrent(d.context); r != kCudaSuccess)
    return failure(TEXRT_CUDA_INIT_FAILED, "cannot make the CUDA context current: " + d.error_string(r));
  return {};
}

CudaStatus load_module(const CudaDriver& d, const char* ptx, const std::string& of_what, CUmodule* module) {
  char log[8192] = {0};
  int options[] = {kCuJitErrorLogBuffer, kCuJitErrorLogBufferSizeBytes};
  void* values[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log))};
  if (CUresult r = d.cuModuleLoadDataEx(module, ptx, 2, options, values); r != kCudaSuccess) {
    *module = nullptr;
    std::string message = "the CUDA driver rejected the PTX" + of_what + ": " + d.error_string(r);
    if (log[0]) message += "\n" + std::string(log, strnlen(log, sizeof log));
    return failure(TEXRT_CUDA_MODULE_FAILED, message);
  }
  return {};
}

CudaStatus find_kernel(const CudaDriver& d, CUmodule module, const char* symbol, uint32_t shared_bytes,
                       const std::string& name, CUfunction* function) {
  if (CUresult r = d.cuModuleGetFunction(function, module, symbol); r != kCudaSuccess) {
    *function = nullptr;
    return failure(TEXRT_CUDA_MODULE_FAILED, "kernel " + name + " not found in its PTX: " + d.error_string(r));
  }
  if (shared_bytes > kStaticSharedLimit) {
    if (CUresult r = d.cuFuncSetAttribute(*function, kCuFuncAttributeMaxDynamicSharedBytes, int(shared_bytes));
        r != kCudaSuccess)
      return failure(TEXRT_CUDA_LAUNCH_FAILED, "kernel " + name + " cannot have " + std::to_string(shared_bytes) +
                                                   " bytes of shared memory: " + d.error_string(r));
  }
  return {};
}

CudaStatus launch_kernel(const CudaDriver& d, CUfunction function, const uint32_t grid[3], const uint32_t block[3],
                         uint32_t shared_bytes, void** args, const std::string& name) {
  CUresult r = d.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes, nullptr,
                                args, nullptr);
  if (r != kCudaSuccess)
    return failure(TEXRT_CUDA_LAUNCH_FAILED, "launch of kernel " + name + " (grid " + dims_text(grid) + ", block " +
                                                 dims_text(block) + ", " + std::to_string(shared_bytes) +
                                                 " bytes of dynamic shared memory) failed: " + d.error_string(r));
  return {};
}

CudaStatus zero_output(const CudaDriver& d, CUdeviceptr pointer, uint64_t bytes, const std::string& name,
                       const std::string& kernel) {
  CUresult r = d.cuMemsetD32Async(pointer, 0u, size_t(bytes / 4), nullptr);
  if (r != kCudaSuccess)
    return failure(TEXRT_CUDA_LAUNCH_FAILED, "cannot zero output " + name + " (" + std::to_string(bytes) +
                                                 " bytes) of kernel " + kernel + " before its launch: " + d.error_string(r));
  return {};
}

}  // namespace texrt
