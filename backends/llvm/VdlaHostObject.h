// The host side of an op compiled for --target vdla as a graph of VDLA and host kernels
// (tools/driver/VdlaGraph.h, docs/graph.md "VDLA: accelerator and host"): `texc net.tex --target
// vdla -o net` writes net.o and net.h with these.
//
// net.o is an ELF object for the host CPU (`cpu`: the CPU `texc run --target vdla` JIT-compiles the
// host kernels for) with
//  - the host functions compiled as on that CPU target: the host kernels and the prepare function
//    of an op with const inputs (`void f(...)`);
//  - one function per VDLA kernel, `int <op>_k<N>(const T* in..., T* out...)`, its program (a .vdla
//    file's bytes) embedded, run through texrt_vdla_run_embedded (runtime/texrt_vdla.h: loaded at
//    the first call, then simulated with the tensors copied into and out of the accelerator's DRAM);
//  - the entry `int <op>(...)` and `int <op>_with_workspace(..., void* workspace)`, which call the
//    kernels in order on the graph's workspace (KernelCallEntry.h: host memory from texrt_alloc),
//    stop at the first VDLA kernel that fails and return its code (0, or -1 with
//    texrt_vdla_last_error() saying why).
// Link it with libtexrt.a and texrt_vdla's libraries (libtexc_backends_vdla.a, libtexc_ir.a, -lfmt).
//
// This header includes nothing from LLVM.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backends/llvm/LLVMBackend.h"
#include "ir/Function.h"

namespace texc {

struct VdlaKernelProgram {
  LoweredFunc kernel;             // the VDLA kernel: its name and arguments
  std::vector<uint8_t> program;   // its .vdla file
};

/// `host_funcs`: the graph's host kernels, prepare functions and entries (ir/KernelCalls.h), in
/// module order. Throws std::runtime_error if `path` cannot be written, TargetOptionError for a
/// CPU LLVM does not know.
void write_vdla_host_object(const std::vector<LoweredFunc>& host_funcs, const std::vector<VdlaKernelProgram>& programs,
                            const CpuTargetOptions& cpu, const std::string& path, CpuCompileTimes* times = nullptr);

/// net.h: the functions of that object with their arguments' shapes (as emit_c_header), the
/// entries and VDLA kernels returning int.
std::string emit_vdla_host_header(const std::vector<LoweredFunc>& funcs);

}  // namespace texc
