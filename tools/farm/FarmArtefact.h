// FarmArtefact: a candidate compiled on the tuner's side and shipped with its farm job (`texc tune
// --broker ... --compile-on tuner`, docs/tuning.md "Compiled on the tuner"), so that the worker
// only loads, runs, checks and times it. For x86 it is the object emit_packed_object writes (the
// op and its packed wrapper, as the JIT compiles it), for the CPU the device kind's workers
// registered; the worker links it in its measuring child (make_x86_object_runner). For arm it is
// the aarch64 object and the C++ driver the arm runner links it with (arm_program_parts); the
// worker links the two with its aarch64 runtime and runs the program, under qemu off aarch64 hosts
// (make_arm_object_runner). Either way the outputs are checked against the reference interpreter
// on the op of the job's sources, as local tuning does. For cuda it is the PTX of the candidate's
// kernel for the architecture the kind's workers registered, with its launch (grid, block, dynamic
// shared memory: cuda_launch_config); the worker loads it on its device in the measuring child
// and launches it as the CUDA runner does its own (make_cuda_ptx_runner), the driver compiling the
// PTX for the device as it does for `texc run`. For vdla it is the candidate's VDLA program (the
// `.vdla` file, backends/vdla/ProgramFile.h), generated for the tuner's VDLA configuration, which
// the artefact names by its id (vdla_config_id) and the worker's must be; the worker simulates it.
// It says what it was built for (the triple, the LLVM CPU and the relevant CPU features it may
// use), and a worker refuses one it cannot run (artefact_refusal): another kind of artefact,
// another triple, or features its CPU lacks. In the job it is JSON with the bytes in base64, under
// the job's size limit (--max-job-bytes) like the rest of the job.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "backends/llvm/CudaBackend.h"
#include "backends/llvm/LLVMBackend.h"
#include "backends/vdla/VdlaConfig.h"
#include "ir/Schedule.h"
#include "tuner/Json.h"
#include "tuner/Machine.h"

namespace texc {

struct FarmArtefact {
  std::string kind;                   // "x86-object", "arm-object", "cuda-ptx" or "vdla-program"
  std::string triple;                 // "x86_64-unknown-linux-gnu"; "nvptx64-nvidia-cuda"; "vdla"
  std::string cpu;                    // the LLVM CPU it was compiled for: "znver5"; cuda: the PTX target "sm_80";
                                      // vdla: its configuration's vdla_config_id
  std::vector<std::string> features;  // the relevant_cpu_features (Machine.h) that CPU has, sorted
  std::string entry;                  // the op's function: `entry`.packed(void** args)
  std::string bytes;                  // the object file
  // arm-object only: the driver's C++ source and the op's argument sizes (ArmRunner.h ArmProgramParts)
  std::string driver;
  std::vector<int64_t> input_bytes, output_bytes;
  // cuda-ptx only (`bytes` is the PTX text): how the kernel is launched
  CudaLaunchConfig launch;

  Json to_json() const;
};

/// The artefact in `j` (a job's "artefact" member), or why it is not a well-formed one.
struct ParsedArtefact {
  std::optional<FarmArtefact> artefact;
  std::string error;
};
ParsedArtefact parse_farm_artefact(const Json& j);

/// The kind of artefact a worker of `target` runs: "x86-object" for x86 and x86-sse, "arm-object" for arm,
/// "cuda-ptx" for cuda, "vdla-program" for vdla; "" for a target whose workers run none (interp, cuda-interp).
std::string artefact_kind_of(const std::string& target);

/// The triple of a cuda worker's Machine (WorkerOptions::machine): its cpu is the PTX target of its device.
inline const char* kCudaArtefactTriple = "nvptx64-nvidia-cuda";
/// The triple of a vdla worker's Machine: its cpu is the vdla_config_id of the configuration it simulates.
inline const char* kVdlaArtefactTriple = "vdla";
/// "config-1a2b3c4d": a digest of the configuration's JSON (vdla_config_json), equal for equal configurations.
std::string vdla_config_id(const vdla::VdlaConfig& config);

/// Why a worker measuring `target` on `worker` cannot run `a` ("" when it can): an artefact of
/// another kind, for another triple, or using CPU features the worker's CPU lacks; PTX for an
/// architecture newer than the worker's device's (or one texc does not know); a VDLA program for
/// another configuration than the worker simulates.
std::string artefact_refusal(const FarmArtefact& a, const std::string& target, const Machine& worker);

/// `func` compiled for `cpu` (LLVM arch x86 or arm) into its artefact, in a child process (a crash or an
/// abort in code generation is a failed compile, not the end of the tuner; killed after
/// `timeout_s`). Throws std::runtime_error saying why it could not be compiled. `knobs` are the
/// candidate's, for the test hook TEXC_TUNE_TEST_FAULT="compile-crash@K=V" (tuner/Measure.h).
FarmArtefact compile_farm_artefact(const LoweredFunc& func, const CpuTargetOptions& cpu, double timeout_s,
                                   const KnobConfig& knobs = {});
/// `func` (a device function of the cuda lowering) compiled to PTX for `target.arch`, with its
/// launch, into its "cuda-ptx" artefact, in a child process as above.
FarmArtefact compile_farm_ptx(const LoweredFunc& func, const CudaTargetOptions& target, double timeout_s,
                              const KnobConfig& knobs = {});
/// `func` compiled to a VDLA program for `config` into its "vdla-program" artefact, in a child process as above.
FarmArtefact compile_farm_vdla(const LoweredFunc& func, const vdla::VdlaConfig& config, double timeout_s,
                               const KnobConfig& knobs = {});

std::string base64_encode(const std::string& bytes);
/// nullopt when `text` is not base64 (standard alphabet, padded).
std::optional<std::string> base64_decode(const std::string& text);

}  // namespace texc
