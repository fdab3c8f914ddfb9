// The LLVM NVPTX backend's public API: device functions (LoweredFunc::kind == Device, from the cuda
// lowering) -> LLVM IR with NVVM intrinsics and address spaces -> PTX for one `--arch`
// (ir/Target.h cuda_archs: sm_70 ... sm_90). One module per call, one `.entry` kernel per op,
// named as the op, taking one global (device) pointer per argument, inputs then outputs.
// What the kernels may contain and how each construct maps: CodeGenNVPTX.h.
//
// This header includes nothing from LLVM.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/Target.h"

namespace texc {

struct CudaTargetOptions {
  std::string arch = kDefaultCudaArch;  // "sm_80"; an unknown one is a TargetOptionError
  int opt_level = 3;                    // 0..3
};

/// The optimized module as textual LLVM IR (triple nvptx64-nvidia-cuda).
std::string emit_cuda_llvm_ir(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target);
/// The PTX text of the module (`.version`, `.target <arch>`, one `.entry` per op).
std::string emit_ptx(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target);

}  // namespace texc

namespace texc {

/// The host side of `texc f.tex --target cuda -o f` (f.o): an ELF object for the machine texc runs
/// on (x86-64, or aarch64 there; generic CPU, position-independent) with the PTX of `funcs` embedded as a string and one C function per op,
/// `int op(const T* in..., T* out...)` taking device pointers, which launches the op's kernel with
/// the grid and block of its LaunchAttributes (constant extents) through texrt_cuda_launch
/// (runtime/texrt_cuda.h: the driver API loaded with dlopen; no link-time dependency on CUDA) and
/// returns its error code. Link it with libtexrt.a. The host entry of an op compiled as a graph of
/// kernels (a host function of ir/KernelCalls.h's form, among `funcs` after its kernels) becomes a C
/// function with the op's signature that takes the graph's workspace in device memory from the
/// calling thread's (texrt_cuda_thread_workspace: allocated at its first call, kept for the next),
/// launches its kernels in order without waiting between them (texrt_cuda_launch_async), stops at
/// the first refused launch, waits for them once (texrt_cuda_synchronize) and returns the code. Throws std::runtime_error if `path` cannot be written.
void write_cuda_host_object(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target,
                            const std::string& path);
/// How the host launches `func` (a device function): grid = the extents of blockIdx.x/y/z, block =
/// those of threadIdx.x/y/z (1 where not bound), and the dynamic shared memory it asks for
/// (func.launch.dynamic_shared_bytes plus its own shared buffers when they pass 48 KiB:
/// CodeGenNVPTX.h kernel_shared_bytes). What f.o's host functions and `texc run --target cuda` use.
struct CudaLaunchConfig {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t shared_bytes = 0;
  /// The outputs zeroed before each launch (split-K: LaunchAttributes::zeroed_outputs), as
  /// (argument index, bytes).
  std::vector<std::pair<uint32_t, uint64_t>> zeroed_args = {};
};
CudaLaunchConfig cuda_launch_config(const LoweredFunc& func);

/// The header of that object (f.h): each op's host function, its arguments' shapes and element
/// types (shape macros as emit_c_header), that every pointer is a device pointer, the error codes
/// and texrt_cuda_error_message.
std::string emit_cuda_host_header(const std::vector<LoweredFunc>& funcs);

}  // namespace texc
