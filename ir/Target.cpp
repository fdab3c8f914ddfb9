#include "ir/Target.h"

#include <algorithm>

namespace texc {

const std::vector<std::string>& all_thread_tags() {
  static const std::vector<std::string> tags = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                                "threadIdx.y", "threadIdx.z", "vthread"};
  return tags;
}

const std::vector<CudaArch>& cuda_archs() {
  // Shared memory per block with the opt-in (CUDA C Programming Guide, "Compute capabilities").
  static const std::vector<CudaArch> archs = {
      {"sm_70", 70, 96 * 1024},  {"sm_72", 72, 96 * 1024},  {"sm_75", 75, 64 * 1024},
      {"sm_80", 80, 163 * 1024}, {"sm_86", 86, 99 * 1024},  {"sm_87", 87, 163 * 1024},
      {"sm_89", 89, 99 * 1024},  {"sm_90", 90, 227 * 1024},
  };
  return archs;
}

const CudaArch* find_cuda_arch(const std::string& name) {
  for (const CudaArch& a : cuda_archs())
    if (name == a.name) return &a;
  return nullptr;
}

std::string cuda_arch_names() {
  std::string out;
  for (const CudaArch& a : cuda_archs()) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

const std::vector<Target>& all_targets() {
  const std::vector<std::string>& kGpuThreadTags = all_thread_tags();
  const std::vector<MemScope> kCpuScopes = {MemScope::Global, MemScope::Local};
  const std::vector<MemScope> kGpuScopes = {MemScope::Global, MemScope::Shared, MemScope::Local};
  // the tensor-core intrinsics of both GPU targets (lower/gpu/MmaIntrinsics.h)
  const std::vector<std::string> kGpuIntrinsics = {"cuda.mma_tf32", "cuda.mma_3xtf32", "cuda.mma_f16",
                                                     "cuda.mma_bf16"};
  // vdla's on-chip buffers (docs/vdla.md): local memories of the accelerator, tagged by buffer —
  // input rows, weight tiles, accumulator rows. backends/vdla/VdlaScopes.h reads them from here.
  const std::vector<MemScope> kVdlaScopes = {MemScope::Global, {StorageRank::Local, "vdla.inp"},
                                             {StorageRank::Local, "vdla.wgt"}, {StorageRank::Local, "vdla.acc"}};
  // What a CUDA launch accepts on every architecture texc targets (CUDA C Programming Guide,
  // "Compute capabilities": grid 2^31-1 x 65535 x 65535 blocks, block 1024 x 1024 x 64 threads and
  // 1024 in all, 512 KiB of local memory per thread); shared memory per --arch is in cuda_archs().
  const TargetLimits kCudaLimits = {1024, 48 * 1024, {2147483647, 65535, 65535}, {1024, 1024, 64}, 512 * 1024};
  // CPUs: `vthread` is accepted and means a serial loop there, as in TVM.
  // Outputs: interp and cuda-interp run the loops and generate no code; vdla its programs, and the
  // host object and header of an op compiled as a graph of VDLA and host kernels.
  const std::vector<std::string> kCpuOutputs = {"obj", "header", "llvm", "asm", "loops", "graph", "graph-dot"};
  // One entry per target, in the order --help lists them. Each target's behaviour on the host
  // (executor, tuning runner, timing) is its entry in tools/driver/TargetRegistry.cpp.
  static const std::vector<Target> targets = {
      {.name = "interp", .schedule_family = "cpu", .description = "texc's own loop interpreter",
       .passes = PassFamily::Cpu, .own_schedule_block = false, .interprets_intrinsics = true, .llvm_cpu_arch = "",
       .default_mcpu = "", .vdla_program = false, .peak_gflops = 0, .thread_tags = {"vthread"}, .scopes = kCpuScopes,
       .builtin_intrinsics = {}, .limits = {}, .outputs = {"loops", "graph", "graph-dot"}, .default_outputs = {"loops"}},
      {.name = "x86", .schedule_family = "cpu", .description = "x86-64 through LLVM (the host's CPU by default)",
       .passes = PassFamily::Cpu, .own_schedule_block = true, .interprets_intrinsics = false, .llvm_cpu_arch = "x86",
       .default_mcpu = "", .vdla_program = false, .peak_gflops = 0, .thread_tags = {"vthread"}, .scopes = kCpuScopes,
       .builtin_intrinsics = {}, .limits = {}, .outputs = kCpuOutputs, .default_outputs = {"obj", "header"}},
      {.name = "x86-sse", .schedule_family = "cpu",
       .description = "x86-64 with SSE4.2 and no AVX through LLVM (--mcpu x86-64-v2 by default)",
       .passes = PassFamily::Cpu, .own_schedule_block = false, .interprets_intrinsics = false, .llvm_cpu_arch = "x86",
       .default_mcpu = "x86-64-v2", .vdla_program = false, .peak_gflops = 0, .thread_tags = {"vthread"},
       .scopes = kCpuScopes, .builtin_intrinsics = {}, .limits = {}, .outputs = kCpuOutputs,
       .default_outputs = {"obj", "header"}},
      {.name = "arm", .schedule_family = "cpu", .description = "64-bit Arm (AArch64, NEON) through LLVM",
       .passes = PassFamily::Cpu, .own_schedule_block = true, .interprets_intrinsics = false, .llvm_cpu_arch = "arm",
       .default_mcpu = "", .vdla_program = false, .peak_gflops = 0, .thread_tags = {"vthread"}, .scopes = kCpuScopes,
       .builtin_intrinsics = {}, .limits = {}, .outputs = kCpuOutputs, .default_outputs = {"obj", "header"}},
      {.name = "cuda", .schedule_family = "", .description = "NVIDIA GPUs: PTX through LLVM's NVPTX backend",
       .passes = PassFamily::Gpu, .own_schedule_block = true, .interprets_intrinsics = false, .llvm_cpu_arch = "",
       .default_mcpu = "", .vdla_program = false, .peak_gflops = 4e6, .thread_tags = kGpuThreadTags,
       .scopes = kGpuScopes, .builtin_intrinsics = kGpuIntrinsics, .limits = kCudaLimits,
       .outputs = {"obj", "header", "ptx", "llvm", "loops", "graph", "graph-dot"}, .default_outputs = {"obj", "header", "ptx"}},
      {.name = "cuda-interp", .schedule_family = "cuda",
       .description = "the CUDA-lowered loops run with GPU semantics", .passes = PassFamily::Gpu,
       .own_schedule_block = false, .interprets_intrinsics = false, .llvm_cpu_arch = "", .default_mcpu = "",
       .vdla_program = false, .peak_gflops = 4e6, .thread_tags = kGpuThreadTags, .scopes = kGpuScopes,
       .builtin_intrinsics = kGpuIntrinsics, .limits = kCudaLimits, .outputs = {"loops", "graph", "graph-dot"}, .default_outputs = {"loops"}},
      {.name = "vdla", .schedule_family = "", .description = "the VDLA accelerator (instruction stream + simulator)",
       .passes = PassFamily::Vdla, .own_schedule_block = true, .interprets_intrinsics = false, .llvm_cpu_arch = "",
       .default_mcpu = "", .vdla_program = true, .peak_gflops = 1e3, .thread_tags = {"vthread"},
       .scopes = kVdlaScopes, .builtin_intrinsics = {"vdla.gemm"}, .limits = {}, .outputs = {"vdla", "obj", "header", "loops", "graph", "graph-dot"},
       .default_outputs = {"vdla"}},
  };
  return targets;
}

const Target* find_target(const std::string& name) {
  for (const Target& t : all_targets())
    if (name == t.name) return &t;
  return nullptr;
}

bool is_host_alias(const std::string& name) { return name.empty() || name == "host"; }

bool takes_cpu_schedules(const std::string& name) {
  const Target* t = find_target(name);
  return t && std::string(t->schedule_family) == "cpu";
}

bool is_llvm_cpu_target(const std::string& name) { return !llvm_cpu_arch_of(name).empty(); }

std::string llvm_cpu_arch_of(const std::string& name) {
  const Target* t = find_target(name);
  return t ? t->llvm_cpu_arch : "";
}

bool generates_vdla_programs(const std::string& name) {
  const Target* t = find_target(name);
  return t && t->vdla_program;
}

bool interprets_intrinsics(const std::string& name) {
  const Target* t = find_target(name);
  return t && t->interprets_intrinsics;
}

std::string output_refusal(const Target& t, const std::string& kind) {
  auto has = [&](const Target& x) { return std::find(x.outputs.begin(), x.outputs.end(), kind) != x.outputs.end(); };
  if (has(t)) return "";
  std::string name = t.name;
  if (t.outputs.size() == 3 && t.outputs[1] == "graph")  // loops and the partition (docs/graph.md)
    return "target '" + name + "' generates no code (" + t.description + "); its outputs are --emit " +
           t.outputs[0] + ", graph and graph-dot, not '" + kind + "'";
  // An output only one target has (ptx, vdla): name that target.
  const Target* owner = nullptr;
  int owners = 0;
  for (const Target& other : all_targets())
    if (has(other)) owner = &other, ++owners;
  if (owners == 1) return "--emit " + kind + " is an output of target '" + owner->name + "', not of '" + name + "'";
  std::string list;
  for (size_t i = 0; i < t.outputs.size(); ++i)
    list += (i == 0 ? "" : i + 1 == t.outputs.size() ? " and " : ", ") + t.outputs[i];
  return "target '" + name + "' writes --emit " + list + ", not '" + kind + "'";
}

std::string target_names() {
  std::string out;
  for (const Target& t : all_targets()) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

const std::vector<std::string>& schedule_block_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"cpu"};
    for (const Target& t : all_targets())
      if (t.own_schedule_block) n.push_back(t.name);
    return n;
  }();
  return names;
}

std::optional<MemScope> find_scope(const std::string& target, const std::string& name) {
  const Target* t = find_target(target);
  if (!t) return std::nullopt;
  for (const MemScope& s : t->scopes)
    if (s.name() == name) return s;
  return std::nullopt;
}

std::optional<MemScope> find_any_scope(const std::string& name) {
  for (const Target& t : all_targets())
    if (std::optional<MemScope> s = find_scope(t.name, name)) return s;
  return std::nullopt;
}

const std::vector<std::string>& scope_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Target& t : all_targets())
      for (const MemScope& s : t.scopes)
        if (std::find(n.begin(), n.end(), s.name()) == n.end()) n.push_back(s.name());
    return n;
  }();
  return names;
}

std::string scope_names_of(const std::string& target) {
  std::string out;
  if (const Target* t = find_target(target))
    for (const MemScope& s : t->scopes) out += (out.empty() ? "" : ", ") + s.name();
  return out;
}

ThreadLevel thread_level(const std::string& tag) {
  if (tag.rfind("blockIdx.", 0) == 0) return ThreadLevel::Block;
  if (tag.rfind("threadIdx.", 0) == 0) return ThreadLevel::Thread;
  if (tag == "vthread") return ThreadLevel::Virtual;
  return ThreadLevel::None;
}

bool is_gpu_target(const std::string& name) {
  const Target* t = find_target(name);
  return t && t->passes == PassFamily::Gpu;
}

}  // namespace texc
