// Targets as data: what each `--target` is, which schedule blocks apply to it, which thread tags
// `bind` accepts there, which memory scopes and built-in intrinsics it has, and its limits.
//
// Every part of texc that asks "is this a CPU target", "is this a valid thread tag" or "which
// targets are there" asks this table, so a new target is one entry here plus its backend (see
// docs/architecture.md, "Adding a target").
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace texc {

enum class TargetKind : uint8_t { Interp, X86, Arm, Cuda, CudaInterp, Vdla };

/// Which level of the GPU's thread hierarchy a thread tag names.
enum class ThreadLevel : uint8_t { None, Block, Thread, Virtual };

struct TargetLimits {
  int64_t max_threads_per_block = 0;  // 0: no thread binding
  int64_t shared_bytes = 0;           // per block
  std::array<int64_t, 3> max_grid = {0, 0, 0};   // blocks along x, y, z (blockIdx.* extents)
  std::array<int64_t, 3> max_block = {0, 0, 0};  // threads along x, y, z (threadIdx.* extents)
  int64_t local_bytes_per_thread = 0;            // `local` buffers of one thread
};

struct Target {
  TargetKind kind;
  const char* name;                   // as --target spells it
  const char* schedule_family;        // the schedule block that applies besides its own name ("cpu"), or ""
  const char* description;            // for --help and error messages
  std::vector<std::string> thread_tags;            // what bind(L, TAG) accepts
  std::vector<MemScope> scopes;                    // what cache_read/cache_write may use
  std::vector<std::string> builtin_intrinsics;     // tensorize targets that need no declaration
  TargetLimits limits;
  std::vector<std::string> outputs;          // what `--emit` may ask of it (docs/cli.md)
  std::vector<std::string> default_outputs;  // what compiling writes without --emit
};

/// Why target `t` cannot write output `kind` ("" when it can): which outputs it has, and which
/// target has `kind` when another one does ("--emit ptx is an output of target 'cuda'").
std::string output_refusal(const Target& t, const std::string& kind);

/// An NVIDIA GPU architecture `--arch` accepts (cuda, cuda-interp): the PTX target it names and
/// the shared memory one block may use there (statically 48 KiB; more with an opt-in the launcher
/// makes, up to this figure).
struct CudaArch {
  const char* name;          // "sm_80"
  int compute_capability;    // 80
  int64_t max_shared_bytes;  // per block, with the opt-in
};
/// Every architecture, oldest first; the default is "sm_80".
const std::vector<CudaArch>& cuda_archs();
const CudaArch* find_cuda_arch(const std::string& name);
/// "sm_70, sm_72, ...": for messages listing the valid values.
std::string cuda_arch_names();
constexpr const char* kDefaultCudaArch = "sm_80";

/// Every target, in the order --help lists them.
const std::vector<Target>& all_targets();
/// The target named `name`, or null.
const Target* find_target(const std::string& name);
/// True for the targets that lower to GPU kernels (cuda, cuda-interp).
bool is_gpu_target(const std::string& name);
/// True for the targets whose ops take the `schedule cpu` blocks (interp, x86, arm).
bool takes_cpu_schedules(const std::string& name);
/// True for the CPU targets LLVM generates code for (x86, arm): --mcpu, --mattr and the CPU's
/// features apply to them.
bool is_llvm_cpu_target(const std::string& name);
/// "interp, x86, arm, cuda, cuda-interp, vdla": for messages listing the valid values.
std::string target_names();
/// The names a `schedule NAME { }` block may use: "cpu" and every target's own name.
const std::vector<std::string>& schedule_block_names();

/// The level a thread tag names: Block for blockIdx.*, Thread for threadIdx.*, Virtual for vthread.
ThreadLevel thread_level(const std::string& tag);
/// Every thread tag any target knows (blockIdx.x/y/z, threadIdx.x/y/z, vthread).
const std::vector<std::string>& all_thread_tags();

}  // namespace texc
