// Targets as data: what each `--target` is, which schedule blocks apply to it, which passes lower
// it, which thread tags `bind` accepts there, which memory scopes and built-in intrinsics it has,
// which LLVM CPU it compiles for, and its limits.
//
// Every part of texc that asks a question of a target ("does it bind GPU threads", "does LLVM
// generate its code", "which targets are there") asks this table through one predicate per
// question, never the target's name. What a target *does* on the host (how its code is executed,
// measured and timed) is its entry in the driver's registry (tools/driver/TargetRegistry.h). A new
// target is one entry here, one there, and its backend (docs/architecture.md, "Adding a target").
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace texc {

/// Which list of lowering passes a target runs (lower/Lower.cpp's PassTargets bits): loops for a
/// CPU (or the loop interpreter), kernels for a GPU, or a program for the VDLA accelerator.
enum class PassFamily : uint8_t { Cpu, Gpu, Vdla };

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
  const char* name;                   // as --target spells it
  const char* schedule_family;        // the schedule block that applies besides its own name ("cpu"), or ""
  const char* description;            // for --help and error messages
  PassFamily passes;                  // Gpu: its ops become kernels bound to blockIdx/threadIdx (is_gpu_target)
  bool own_schedule_block;            // `schedule NAME { }` may name it (interp and cuda-interp run the
                                      // blocks of cpu and cuda: they have none of their own)
  bool interprets_intrinsics;         // tensorized loops are evaluated from the intrinsic's pattern
                                      // (the loop interpreter), so any CPU intrinsic applies
  const char* llvm_cpu_arch;          // "x86" or "arm": LLVM generates its code for that CPU
                                      // architecture (--mcpu, --mattr apply); "" for the others
  const char* default_mcpu;           // the CPU without --mcpu ("": the host's on x86, generic on arm)
  bool vdla_program;                  // its code is a VDLA program (--vdla-config configures it)
  double peak_gflops;                 // the most a machine of it plausibly reaches, for checking
                                      // tuning records (0: the host's cores x 5 GHz x 256 operations)
  std::vector<std::string> thread_tags;            // what bind(L, TAG) accepts
  std::vector<MemScope> scopes;                    // what cache_read/cache_write may use: the ranks it
                                                   // has and its own tagged memories (vdla's buffers)
  std::vector<std::string> builtin_intrinsics;     // tensorize targets that need no declaration; their
                                                   // definitions depend on the target's configuration and
                                                   // come with the lowering (LowerOptions::builtin_intrinsics)
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
/// `--target host` (and no --target) name the machine texc runs on (host_target(), tools/driver).
bool is_host_alias(const std::string& name);
/// True for the targets that lower to GPU kernels (cuda, cuda-interp): they bind GPU threads,
/// --arch chooses their GPU, and a `global` stage inside their bound loops is shared or local.
bool is_gpu_target(const std::string& name);
/// True for the targets whose ops take the `schedule cpu` blocks (interp and the LLVM CPU targets).
bool takes_cpu_schedules(const std::string& name);
/// True for the CPU targets LLVM generates code for (llvm_cpu_arch not ""): --mcpu, --mattr and
/// the CPU's features apply to them.
bool is_llvm_cpu_target(const std::string& name);
/// The LLVM CPU architecture of an LLVM CPU target ("x86", "arm"; several targets may share one);
/// "" for the other targets and unknown names.
std::string llvm_cpu_arch_of(const std::string& name);
/// True for the targets whose code is a VDLA program (vdla): --vdla-config configures them.
bool generates_vdla_programs(const std::string& name);
/// True for the target that evaluates tensorized loops from the intrinsic's pattern (interp).
bool interprets_intrinsics(const std::string& name);
/// "interp, x86, x86-sse, arm, cuda, cuda-interp, vdla": for messages listing the valid values.
std::string target_names();
/// The names a `schedule NAME { }` block may use: "cpu" and the name of every target with
/// own_schedule_block.
const std::vector<std::string>& schedule_block_names();

/// The scope named `name` that target `target` declares (a rank it has, or one of its tagged
/// memories), or nullopt: for an unknown target, a scope of another target, or an unknown name.
std::optional<MemScope> find_scope(const std::string& target, const std::string& name);
/// The scope named `name` that any target declares, or nullopt (the IR text names any of them).
std::optional<MemScope> find_any_scope(const std::string& name);
/// Every scope name the targets declare, each once, in the order of the table (global, local,
/// shared, then the targets' own memories).
const std::vector<std::string>& scope_names();
/// The names of the scopes of target `target`: "global, local" (for messages).
std::string scope_names_of(const std::string& target);

/// The level a thread tag names: Block for blockIdx.*, Thread for threadIdx.*, Virtual for vthread.
ThreadLevel thread_level(const std::string& tag);
/// Every thread tag any target knows (blockIdx.x/y/z, threadIdx.x/y/z, vthread).
const std::vector<std::string>& all_thread_tags();

}  // namespace texc
