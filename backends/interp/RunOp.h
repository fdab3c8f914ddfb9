// RunOp: the "run an op and check it" logic behind `texc run` (cli.md), shared by every target.
//
// run_op prepares one tensor per input (DIR/OP.NAME.npy with --inputs when that file exists, else
// seeded random values, in RunOptions::input_ranges where given, else in the input's declared
// domain, OpDef::input_domains)
// and per output (filled with NaN / a byte pattern, so unwritten elements fail), evaluates the
// reference interpreter at the points it will check (Check.h; an expensive op is checked on a
// sample, see full_check_max_flops; the tolerance follows each output's accumulation length) —
// when the reference proves the op wrong on these inputs (an out-of-bounds read, a division by
// zero) that is the failure, and the op is not run — then executes the op once and compares every
// output with those values, then, if repeat > 1,
// executes it `repeat` more times and reports the median time (else the time of the one run).
// With save_io_dir it writes every input and output as DIR/OP.NAME.npy. GFLOP/s come from
// ir::count_flops. An InterpError from the executor (e.g. an out-of-bounds access found by the
// loop interpreter) is a failed check carrying its message. An input file with the wrong dtype or
// shape, or one that cannot be read, throws NpyError (a user error).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "backends/interp/Check.h"
#include "backends/interp/Tensor.h"
#include "backends/interp/WeightsFile.h"
#include "ir/Op.h"

namespace texc {

/// Executes a compiled or interpreted op on its arguments: op.inputs then op.outputs, in order.
using OpExecutor = std::function<void(std::vector<Tensor*>& args)>;

/// What `texc run --check` compares with the reference interpreter (docs/cli.md, docs/graph.md).
enum class CheckMode : uint8_t {
  Sampled,  // the default: whole outputs when small and cheap (full_check_max_flops), else a sample
  Full,     // every element of every output
  None,     // nothing: the op runs and is timed, and passes unless it fails to run
};

/// What check_parts found: the parts checked (the kernels of a graph), the points compared, the
/// largest relative error, and the failure ("" when every part passed).
struct PartsCheck {
  int parts = 0;
  int64_t points_checked = 0;
  double max_rel_err = 0;
  bool sampled = false;
  std::string failure;
  /// The op's outputs as the parts computed them, one after the other (in the op's output order):
  /// what the whole op's run is compared with end to end under CheckMode::Sampled.
  std::vector<Tensor> outputs;
};

struct RunOptions {
  std::string target = "interp";  // reported only
  int repeat = 1;
  uint64_t seed = 0;
  std::string inputs_dir;   // "" = random inputs; else the inputs that have a file there
  /// The tensors of a weights container (--weights FILE: WeightsFile.h), read before inputs_dir:
  /// an input with a tensor of its name there takes it (its dtype and shape must be the input's).
  const std::vector<NamedTensor>* weights = nullptr;
  std::string weights_path;  // the container's name in messages
  std::string save_io_dir;  // "" = save nothing
  /// Random inputs uniform in [lo, hi] instead of Tensor::fill_random's default range: by input
  /// name, or for every input under the name "" (--input-range [NAME=]LO,HI).
  std::map<std::string, std::pair<double, double>> input_ranges;
  int threads = 1;          // reported only; the executor decides how many it uses
  CheckOptions check;
  CheckMode check_mode = CheckMode::Sampled;
  /// When set (an op compiled as a graph of kernels): run before the whole op's reference, on the
  /// op's inputs; checks the op's parts each against the reference on its own inputs. A failure
  /// fails the run with its message (the op is not run).
  std::function<PartsCheck(const std::vector<Tensor*>& inputs)> check_parts;
  /// With check_parts and CheckMode::Full, the whole op's outputs are also compared with the
  /// reference of the whole op at every element (the parts were checked already, so this costs
  /// the whole op's reference: minutes for a network). With CheckMode::Sampled they are compared
  /// at every element with the outputs of the parts run one by one (PartsCheck::outputs), each
  /// part checked against the reference on its own inputs: that checks the host entry's calls and
  /// its workspace without the whole op's reference.
  /// An op whose whole evaluation costs more than this many flops (ir::count_flops) is checked on
  /// a sample of points even when its outputs are small enough to check whole, so that the
  /// reference (a tree-walking interpreter) takes seconds, not minutes.
  double full_check_max_flops = 2e7;
  /// What the reference interpreter evaluates, when not the op run: the op as defined, where the op
  /// run was elaborated with a `compute TARGET` implementation (same name, inputs and outputs).
  /// Its flops are the ones reported.
  const OpDef* reference = nullptr;
  /// Called with true before the reference interpreter evaluates the op's checked points and with
  /// false once it has (the tuner's measuring child stops its time limit meanwhile: tuner/Measure.h).
  std::function<void(bool evaluating)> on_reference;
};

struct RunResult {
  std::string op;
  std::string target;
  bool passed = false;
  double max_rel_err = 0;
  double median_ms = 0;
  double gflops = 0;
  int threads = 1;
  int64_t points_checked = 0;
  bool sampled = false;  // some output was checked on a sample of points
  int kernels_checked = 0;  // an op compiled as a graph: the kernels checked on their own inputs
  int64_t nonfinite_expected = 0;  // checked points whose reference value is NaN or infinite
  std::string message;   // why it failed ("" when it passed)
  std::vector<std::string> random_inputs;  // with inputs_dir: the inputs it has no file for
};

RunResult run_op(const OpDef& op, const OpExecutor& execute, const RunOptions& options);

/// A buffer's shape as numbers (throws InterpError when it is not constant).
std::vector<int64_t> buffer_shape(const Buffer& b);

/// The seed of input number `input_index` for a run seed (each input gets different values).
uint64_t input_seed(uint64_t run_seed, size_t input_index);

/// The table line: `matmul  interp  PASS  max_rel_err 2.1e-07  0.53 ms  1.01 GFLOP/s  4096 points checked (all)`
/// (with ", N NaN/inf in the reference" when the reference has such values at checked points)
/// followed, for a failure, by an indented line with the message.
std::string format_result_line(const RunResult& r);
/// One JSON object (one line): {"op": ..., "target": ..., "status": "pass"|"fail", "max_rel_err": ...,
/// "median_ms": ..., "gflops": ..., "threads": ..., "points_checked": ..., "nonfinite_expected": ...,
/// "message": ...}.
std::string format_result_json(const RunResult& r);

}  // namespace texc
