// Measure: timing one candidate for real, isolated in a child process with a time limit.
//
// measure() forks through run_in_child (ChildRun.h; the child is a copy-on-write copy of texc with the lowered function in it);
// the child runs run_op (backends/interp/RunOp.h): seeded random inputs, the reference
// interpreter at the points it checks (every point, or a sample for large outputs), one checked
// call through the target's Runner, then `repeat` timed rounds; it writes its verdict and times
// into memory shared with the parent and exits. The parent waits up to `timeout_s` for the
// candidate (its build and runs), not counting the reference, which has `reference_timeout_s` of
// its own (the child pauses its clock meanwhile: ChildRun.h); then it kills the child. So nothing a candidate does — a fault in compiled code, an abort in code generation,
// an endless loop, a wrong result — ends the tuning run: it is a Measurement with a status and the
// reason ("crash (SIGSEGV, Segmentation fault)", "timeout after 10 s", the check's message).
//
// A target plugs in as a Runner: x86 (JIT), interp and arm (qemu) in CpuRunners.h; a simulator
// (vdla: cycles) or a GPU (cuda: events) implements the same interface in its own file, and
// reports its unit through time_unit().
//
// Test hook: TEXC_TUNE_TEST_FAULT="crash@K=V[,K=V]...;hang@K=V..." makes the child of a
// candidate with those knob values raise SIGSEGV or spin forever before running it (the tests
// use it to inject a crashing and a hanging candidate); "compile-crash@K=V" makes the child that
// compiles such a candidate on the tuner's side for the farm (tools/farm/FarmArtefact.h) raise
// SIGSEGV instead.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backends/interp/Tensor.h"
#include "ir/Function.h"
#include "ir/Op.h"
#include "tuner/Candidate.h"
#include "tuner/Machine.h"

namespace texc {

/// How a target runs a lowered candidate. Called in the measuring child process.
class Runner {
 public:
  virtual ~Runner() = default;
  /// What the times are of, for records: "x86 / AMD EPYC 7B13", "arm / qemu-aarch64 (emulated)".
  virtual std::string device() const = 0;
  /// The machine the times are of, for records (Machine.h); unknown where knobs do not depend on
  /// it (the interpreter, arm under qemu, vdla's simulator).
  virtual Machine machine() const { return {}; }
  /// "ms" (wall-clock per call), or "cycles" for a simulator.
  virtual std::string time_unit() const { return "ms"; }
  /// Builds `func` and runs it on `args` (inputs then outputs): one checked call, whose outputs
  /// stay in `args`, then `repeat` timed rounds; returns the time of one call in each round.
  /// Throws (any std::exception) when it cannot build or run it.
  virtual std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) = 0;
};

struct MeasureOptions {
  int repeat = 5;          // timed rounds; the median is the result, min and max the spread
  double timeout_s = 10;   // the candidate: its build and runs (the child's time but the reference's)
  double reference_timeout_s = 600;  // the reference values it is checked against
  uint64_t seed = 0;       // inputs and the sampled check
  /// What the check compares with, when not the op itself: its definition, where the op was
  /// elaborated with a `compute TARGET` implementation (RunOptions::reference).
  const OpDef* reference = nullptr;
  /// The op as defined, whose arithmetic (ir::count_flops) the records' GFLOP/s count, where the op
  /// measured is a `compute TARGET` implementation of it or the main half of a split op (nullptr:
  /// the op measured): `texc run` counts the same.
  const OpDef* definition = nullptr;
};

struct Measurement {
  std::string status;      // "ok", "wrong", "crash", "timeout", "error"
  std::vector<double> times;
  double median = 0, min = 0, max = 0;
  double max_rel_err = 0;
  std::string message;     // why, when status != "ok"
};

Measurement measure(const OpDef& op, const Candidate& candidate, Runner& runner, const MeasureOptions& options);

/// The fault the test hook TEXC_TUNE_TEST_FAULT asks for a candidate of `config`: "crash", "hang",
/// "compile-crash" or "" (none; the variable unset).
std::string tune_test_fault(const KnobConfig& config);

/// Measures candidates elsewhere than in this process's children: `texc tune --broker` hands each
/// batch to the measurement farm (tools/farm/FarmMeasurer.h), whose workers call measure() as above.
/// submit() starts measuring a valid candidate (the farm's workers start on it while the tuner
/// lowers the next one); collect() waits for every candidate submitted since the last collect()
/// and returns their Measurements in order. Both throw std::runtime_error when the farm cannot be
/// reached.
class BatchMeasurer {
 public:
  virtual ~BatchMeasurer() = default;
  virtual void submit(const OpDef& op, const Candidate& candidate) = 0;
  virtual std::vector<Measurement> collect() = 0;
  /// What the progress line of a batch adds about the measurers ("" = nothing): the farm's state of
  /// the device kind (`texc tune --broker`). Called after collect().
  virtual std::string progress() { return ""; }
  /// submit() then collect() of one candidate.
  Measurement measure_one(const OpDef& op, const Candidate& candidate) {
    submit(op, candidate);
    return collect().at(0);
  }
};

}  // namespace texc
