// CudaKernel: loading PTX, finding a kernel and launching it through the CUDA driver API — the one
// place where texc does this. Used by texrt_cuda_launch (CudaLaunch.cpp: what compiled cuda host
// functions call) and by `texc run` / `texc tune` on the cuda target (tools/driver/CudaExecutor.cpp).
// C++, internal to texc: programs that use compiled ops see only the C API of texrt_cuda.h.
//
// Each function returns a CudaStatus: TEXRT_CUDA_SUCCESS, or a texrt_cuda error code with a message
// naming what failed and the driver's reason. None of them throws or synchronizes.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/CudaDriver.h"

namespace texrt {

struct CudaStatus {
  int code = TEXRT_CUDA_SUCCESS;
  std::string message;  // empty on success
  bool ok() const { return code == TEXRT_CUDA_SUCCESS; }
};

/// Makes a context current on the calling thread: the caller's if one is already current, else the
/// primary context of device 0. TEXRT_CUDA_INIT_FAILED when that fails.
CudaStatus make_context_current(const CudaDriver& d);

/// Loads `ptx` as a module in the current context (cuModuleLoadDataEx, with the JIT's error log).
/// TEXRT_CUDA_MODULE_FAILED when the driver rejects it: "the CUDA driver rejected the PTX<of_what>:
/// <reason>", followed by the JIT's log on the next lines when it wrote one. `of_what` is e.g. " of op
/// 'mm'" (or empty).
CudaStatus load_module(const CudaDriver& d, const char* ptx, const std::string& of_what, CUmodule* module);

/// Kernel `symbol` of `module`, allowed `shared_bytes` of dynamic shared memory (the attribute is set
/// when that is more than the 48 KiB every kernel may have). `name` is the kernel's name in messages.
/// TEXRT_CUDA_MODULE_FAILED when the module has no such kernel, TEXRT_CUDA_LAUNCH_FAILED when the
/// device refuses that much shared memory.
CudaStatus find_kernel(const CudaDriver& d, CUmodule module, const char* symbol, uint32_t shared_bytes,
                       const std::string& name, CUfunction* function);

/// One launch of `function` on the default stream with `grid` x `block` threads, `shared_bytes` of
/// dynamic shared memory and the kernel parameters `args` (a pointer to each argument); it does not
/// wait. TEXRT_CUDA_LAUNCH_FAILED when the driver refuses it: "launch of kernel <name> (grid GxGxG,
/// block BxBxB, N bytes of dynamic shared memory) failed: <reason>".
CudaStatus launch_kernel(const CudaDriver& d, CUfunction function, const uint32_t grid[3], const uint32_t block[3],
                         uint32_t shared_bytes, void** args, const std::string& name);

/// Queues the zeroing of `bytes` bytes (a multiple of 4) at device address `pointer` on the default
/// stream, before the kernels launched after it (cuMemsetD32Async): the outputs a split-K kernel
/// adds its blocks' partial results into (LaunchAttributes::zeroed_outputs). It does not wait.
/// TEXRT_CUDA_LAUNCH_FAILED when the driver refuses it: "cannot zero output <name> of kernel ...".
CudaStatus zero_output(const CudaDriver& d, CUdeviceptr pointer, uint64_t bytes, const std::string& name,
                       const std::string& kernel);

}  // namespace texrt
