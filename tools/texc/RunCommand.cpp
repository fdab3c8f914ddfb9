// `texc run FILE.tex --target T ...`: compiles every op (or --op NAME), runs it on seeded random
// inputs (or --inputs DIR; --input-range sets the random values' range), checks every output
// against the reference interpreter and prints one line (or, with --json, one JSON object) per op.
// Exits 0 only if every op passed.
//
//   interp  the lowered loop AST on the loop interpreter (serially, whatever --threads says: it
//           reports 1 thread); in a child process (backends/execute/Isolate.h) when it calls extern
//           functions from --extern-lib/--extern-src, which may fault.
//   x86     JIT-compiled in texc's process and run in a child process (backends/execute/JitExecutor.h
//           under Isolate.h), so a faulting kernel is a FAIL line; --threads N, else TEXC_NUM_THREADS,
//           else every core; the time is the child's own (time_calls: the median of rounds of at
//           least 1 ms, TimeCalls.h). x86-sse the same, for x86-64-v2 (SSE4.2, no AVX).
//   arm     the arm runner (backends/execute/ArmExecutor.h): natively on aarch64, else cross-linked and run under
//           qemu-aarch64; the time is the driver's own median, labelled "emulated" under qemu.
//   cuda    on CUDA device 0 through the driver API (CudaExecutor.h); without a driver or a device
//           it exits 2 with "no CUDA device: ..." before compiling anything. PTX for --arch, else
//           for the device's own architecture; the time is the median of the launches' CUDA-event
//           times.
//   cuda-interp  the GPU-lowered kernel on the loop interpreter, blocks one after another and the
//           threads of a block phase by phase between barriers; a data race between threads or
//           blocks is a FAIL line naming the buffer, element, threads and loops (CudaInterpreter.h).
//   vdla    the op's VDLA program (backends/vdla/Codegen.h) on the simulator (VdlaExecutor.h); one
//           run, deterministic; the time is the simulated one (cycles at the nominal clock of
//           backends/execute/VdlaExecutor.h, as `texc tune` records it, labelled "simulated"), and a second line
//           reports cycles, that clock, the simulator's host wall time and GEMM utilization.
// How each target executes an op, times it and reports the time is its entry in the library's
// registry (tools/driver/TargetRegistry.h, tools/driver/targets/): the Executor it makes
// (backends/execute/Executor.h) is the one `texc tune` measures through.
// The timed runs follow one checked (warm-up) run: --repeat, default 10 (3 under emulation).
// --check full|sampled|none says what is compared with the reference (RunOp.h CheckMode); an op
// compiled as a graph of kernels has each kernel checked on its own inputs first (GraphCheck.h).
// Extern functions of tensorized ops come from --extern-lib / --extern-src (ExternFunctions.h).
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "backends/interp/InterpError.h"
#include "backends/interp/RunOp.h"
#include "runtime/texrt.h"
#include "tools/texc/Commands.h"
#include "tools/texc/ModelSource.h"
#include "ir/Target.h"
#include "tools/driver/GraphCheck.h"
#include "tools/driver/LoadProgram.h"
#include "tools/driver/RecordKnobs.h"
#include "tools/driver/TargetExecutors.h"
#include "tools/driver/TargetRegistry.h"
#include "tools/driver/LowerForTarget.h"
#include "lower/gpu/MmaIntrinsics.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

/// The threads the user asked for: --threads, else TEXC_NUM_THREADS (which must then be a whole
/// number from 1 to TEXRT_MAX_THREADS: anything else is a mistake, not a value to ignore), else 0.
int requested_threads(const CommandLine& cl) {
  if (cl.threads) return cl.threads;
  const char* env = std::getenv("TEXC_NUM_THREADS");
  if (!env) return 0;
  long n = texrt_parse_num_threads(env);
  if (n < 1 || n > TEXRT_MAX_THREADS)
    throw CommandLineError("TEXC_NUM_THREADS must be a whole number from 1 to " + std::to_string(TEXRT_MAX_THREADS) +
                           ", not '" + env + "'");
  return int(n);
}

/// A run's JSON object with "remarks": [{"line", "column", "message"}...] added (--remarks).
std::string with_remarks_json(const std::string& object, const std::vector<Remark>& remarks) {
  std::string list;
  for (const Remark& r : remarks) {
    std::string message;
    for (char c : r.message) {
      if (c == '"' || c == '\\') message += '\\';
      message += c;
    }
    list += std::string(list.empty() ? "" : ", ") + "{\"line\": " + std::to_string(r.loc.line) +
            ", \"column\": " + std::to_string(r.loc.col) + ", \"message\": \"" + message + "\"}";
  }
  return object.substr(0, object.rfind('}')) + ", \"remarks\": [" + list + "]}";
}

// Every --input-range names an input of some op run, and each range holds a value of the inputs'
// element types (a user error otherwise).
void check_input_ranges(const CommandLine& cl, const Program& program) {
  for (const auto& [name, range] : cl.input_ranges) {
    bool named = name.empty();
    for (const OpDef& op : program.ops)
      for (const Buffer& b : op.inputs) {
        if (!name.empty() && b->name != name) continue;
        if (name.empty() && cl.input_ranges.count(b->name)) continue;  // its own range wins
        named = true;
        if (!random_range_holds_a_value(b->dtype, range.first, range.second))
          throw CommandLineError(fmt::format("--input-range {}{},{}: input '{}' of op '{}' is {}, which holds no value "
                                             "in that range", name.empty() ? "" : name + "=", range.first,
                                             range.second, b->name, op.name, b->dtype.str()));
      }
    if (!named) {
      std::string inputs;
      for (const OpDef& op : program.ops)
        for (const Buffer& b : op.inputs) inputs += (inputs.empty() ? "" : ", ") + b->name;
      throw CommandLineError("--input-range " + name + "=...: no op run has an input named '" + name +
                             "' (inputs: " + inputs + ")");
    }
  }
}

}  // namespace

int run_command(const CommandLine& command_line) {
  CommandLine cl = command_line;
  const TargetBehaviour& behaviour = target_behaviour(cl.target);
  if (behaviour.open_device) behaviour.open_device(cl);  // "no CUDA device": exit 2 here
  TargetExecutors target(cl);  // a bad --mcpu or --vdla-config fails first
  target.trace_path = cl.trace;
  std::vector<Remark> remarks;  // --remarks: those of the op last lowered
  RunOptions options;
  options.target = cl.target;
  options.repeat = cl.repeat ? cl.repeat : behaviour.run_repeat;
  options.seed = cl.seed;
  options.inputs_dir = cl.inputs_dir;
  options.save_io_dir = cl.save_io_dir;
  options.input_ranges = cl.input_ranges;
  options.threads = 1;
  if (cl.check == "full") options.check_mode = CheckMode::Full;
  if (cl.check == "none") options.check_mode = CheckMode::None;
  RunRequest request;
  request.repeat = cl.repeat;
  request.requested_threads = [&cl] { return requested_threads(cl); };
  if (behaviour.prepare_run) behaviour.prepare_run(target, request, options);
  if (behaviour.times_own_calls) {
    target.timed_rounds = options.repeat;
    options.repeat = 1;  // one execution = the checked call and the timed rounds, timed by the executor
  }

  Program program = load_program(cl);
  check_input_ranges(cl, program);
  // --weights W, or an ONNX model's initializers: every const input must be there.
  options.weights = &model_weights(cl, &options.weights_path);
  if (options.weights->empty()) options.weights = nullptr;
  else
    for (const OpDef& op : program.ops) check_const_inputs(*options.weights, options.weights_path, op);
  // Each op is checked against its definition, also where --target compiled a `compute TARGET`
  // implementation of it (or of an op it calls) instead.
  Program definitions = load_definitions(cl);
  int failed = 0;
  for (const OpDef& op : program.ops) {
    RunResult result;
    const OpDef* defined = &op;
    for (const OpDef& d : definitions.ops)
      if (d.name == op.name) defined = &d;
    options.reference = defined;
    try {
      std::vector<LoweredFunc> funcs = lower_op_functions(op, cl, knobs_from_records(cl, op), &remarks);
      options.check.input_unit_roundoff = 0;  // TF32 tensor cores: each product within 2 * 2^-11 (Check.h)
      for (const LoweredFunc& f : funcs) options.check.input_unit_roundoff = std::max(options.check.input_unit_roundoff, input_unit_roundoff(f.body));
      // An op compiled as a graph of kernels: each kernel checked on its own inputs first (GraphCheck.h).
      options.check_parts = nullptr;
      if (graph_of(graph_op_of(op), cl))
        options.check_parts = [&](const std::vector<Tensor*>& inputs) {
          return check_graph_parts(op, funcs, target, inputs, options);
        };
      result = run_op(op, target.make_executor(op, funcs), options);
    } catch (const InterpError& e) {  // the loop AST cannot be executed: a lowering bug
      result.op = op.name;
      result.target = cl.target;
      result.threads = options.threads;
      result.message = e.what();
    }
    for (const std::string& input : result.random_inputs)
      std::cerr << "texc: note: --inputs " << cl.inputs_dir << " has no " << op.name << "." << input
                << ".npy; input '" << input << "' of op '" << op.name << "' is random (seed " << cl.seed << ")\n";
    if (!result.passed) ++failed;
    if (result.passed && result.points_checked && 2 * result.nonfinite_expected >= result.points_checked)
      std::cerr << "texc: warning: " << result.nonfinite_expected << " of the " << result.points_checked
                << " checked points of op '" << op.name
                << "' are NaN or infinite in the reference too, so the check says little: the random inputs "
                   "may be outside the op's domain (a sqrt or log of a negative, a division by zero); "
                   "declare the inputs' domain in the op (`var: f32[C] in 0.0..4.0`), or give them a range with "
                   "--input-range [NAME=]LO,HI or files with --inputs DIR\n";
    // The target's own time where it has one (TargetRegistry.h: the executor's, the simulated).
    std::string text = behaviour.format_run_result
                           ? behaviour.format_run_result(target, result, count_flops(*defined), cl.json)
                           : cl.json ? format_result_json(result) : format_result_line(result);
    target.clear_timings();
    if (cl.json && cl.remarks) text = with_remarks_json(text, remarks);
    remarks.clear();
    std::cout << text << std::endl;
  }
  return failed ? 1 : 0;
}

}  // namespace texc
