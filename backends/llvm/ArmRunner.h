// ArmRunner: runs compiled ops for the arm target (aarch64-linux-gnu) and reads their outputs back.
//
// Writes the op's aarch64 object file, a generated C++ driver that reads each input from a binary
// file, calls the op once (the checked call: its outputs are the ones written) and then `repeat`
// times under a clock, and writes the times; cross-links it with `aarch64-linux-gnu-g++ -static` against the aarch64
// libtexrt.a, and runs it under `qemu-aarch64` (natively on an aarch64 host). Times measured under
// emulation are labelled so and are not performance figures. The two halves can run on two
// machines: arm_program_parts compiles (the object and the driver), run_arm_object links and runs.
//
// Inputs and outputs are raw little-endian element bytes, dense, in the op's argument order; every
// argument must have a constant size. A missing cross compiler, emulator or aarch64 runtime library
// throws MissingToolError (the CLI exits 2); a failing compile, link or run throws std::runtime_error
// with the tool's output.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/llvm/LLVMBackend.h"

namespace texc {

/// The environment lacks a tool or file a command needs (exit code 2).
class MissingToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ArmRunOptions {
  int repeat = 1;           // timed calls, after one untimed call
  int num_threads = 0;      // TEXC_NUM_THREADS of the program; 0: inherit the environment
  std::string work_dir;     // empty: a fresh temporary directory, removed afterwards
  std::string texrt_lib;    // empty: $TEXC_TEXRT_AARCH64, else the build tree's runtime/aarch64/libtexrt.a
  /// More aarch64 objects or static archives linked into the driver (e.g. the extern functions
  /// that tensorized ops call).
  std::vector<std::string> extra_link_inputs;
};

struct ArmRunResult {
  std::vector<std::vector<uint8_t>> outputs;  // one per output argument, in argument order
  std::vector<double> times_ms;               // one per timed call
  double median_ms = 0;
  bool emulated = true;                       // ran under qemu-aarch64
  /// "emulated (qemu-aarch64)" or "native".
  std::string timing_label() const { return emulated ? "emulated (qemu-aarch64)" : "native"; }
};

/// Total bytes of argument `i` of `func` (its element count times the element size).
int64_t argument_bytes(const LoweredFunc& func, size_t i);

/// Compiles `funcs` for `target` (arch "arm") and runs op `op_name` on `inputs` (one byte vector per
/// input argument, of argument_bytes size).
ArmRunResult run_on_arm(const std::vector<LoweredFunc>& funcs, const std::string& op_name,
                        const std::vector<std::vector<uint8_t>>& inputs, const CpuTargetOptions& target,
                        const ArmRunOptions& options = {});

/// What run_on_arm links and runs for op `op_name` of `funcs`, compiled: the aarch64 object (of all
/// of `funcs`), the C++ driver (which embeds the op's argument sizes) and those sizes; so that one
/// machine compiles and another links and runs (run_arm_object: a farm's worker, docs/tuning.md).
struct ArmProgramParts {
  std::string object;                // the ELF object
  std::string driver;                // the driver's C++ source
  std::vector<int64_t> input_bytes;  // per input argument, in order
  std::vector<int64_t> output_bytes; // per output argument, in order
};
ArmProgramParts arm_program_parts(const std::vector<LoweredFunc>& funcs, const std::string& op_name,
                                  const CpuTargetOptions& target);

/// run_on_arm's link and run of parts compiled before (nothing is compiled but the driver).
ArmRunResult run_arm_object(const ArmProgramParts& parts, const std::vector<std::vector<uint8_t>>& inputs,
                            const ArmRunOptions& options = {});

/// Throws MissingToolError unless the cross compiler, qemu-aarch64 (off aarch64 hosts) and the
/// aarch64 runtime library are available.
void check_arm_tools(const ArmRunOptions& options = {});

}  // namespace texc
