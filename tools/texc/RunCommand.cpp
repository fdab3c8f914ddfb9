// `texc run FILE.tex --target T ...`: compiles every op (or --op NAME), runs it on seeded random
// inputs (or --inputs DIR; --input-range sets the random values' range), checks every output
// against the reference interpreter and prints one line (or, with --json, one JSON object) per op.
// Exits 0 only if every op passed.
//
//   interp  the lowered loop AST on the loop interpreter (serially, whatever --threads says: it
//           reports 1 thread); in a child process (ChildProcess.h) when it calls extern functions
//           from --extern-lib/--extern-src, which may fault.
//   x86     JIT-compiled in texc's process and run in a child process (JitExecutor.h), so a
//           faulting kernel is a FAIL line; --threads N, else TEXC_NUM_THREADS, else every core; the
//           time is the child's own median.
//   arm     the arm runner (ArmExecutor.h): natively on aarch64, else cross-linked and run under
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
//           tuner/VdlaRunner.h, as `texc tune` records it, labelled "simulated"), and a second line
//           reports cycles, that clock, the simulator's host wall time and GEMM utilization.
// How each target executes an op is the library's (tools/driver/TargetExecutors.h).
// The timed runs follow one checked (warm-up) run: --repeat, default 10 (3 under emulation).
// Extern functions of tensorized ops come from --extern-lib / --extern-src (ExternFunctions.h).
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "backends/interp/InterpError.h"
#include "backends/interp/RunOp.h"
#include "backends/llvm/ArmRunner.h"
#include "runtime/texrt.h"
#include "tools/texc/Commands.h"
#include "tools/texc/ModelSource.h"
#include "tools/driver/CudaExecutor.h"
#include "tools/driver/VdlaExecutor.h"
#include "ir/Target.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/JitExecutor.h"
#include "tools/driver/LoadProgram.h"
#include "tools/driver/RecordKnobs.h"
#include "tools/driver/TargetExecutors.h"
#include "tools/driver/LowerForTarget.h"
#include "ir/Diagnostics.h"
#include "tuner/VdlaRunner.h"

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

/// How many threads a compiled arm program uses: --threads, else TEXC_NUM_THREADS, else every core.
int arm_threads(const CommandLine& cl) {
  if (int n = requested_threads(cl)) return n;
  return std::max(1u, std::thread::hardware_concurrency());
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

/// The table line or JSON object of an arm result, with its timing labelled (cli.md: times under
/// emulation are not performance figures).
std::string label_arm_timing(std::string text, bool json, const ArmRunResult& timing) {
  if (json) return text.substr(0, text.size() - 1) + ", \"timing\": \"" + timing.timing_label() + "\"}";
  size_t ms = text.find(" ms ");
  if (ms != std::string::npos && timing.emulated) text.insert(ms + 3, " (emulated)");
  return text;
}

/// The table line or JSON object of a VDLA result, its time labelled simulated (cli.md), with the
/// cycles and the host's wall time in --json.
std::string label_vdla_timing(std::string text, bool json, const VdlaRunStats& stats) {
  if (json)
    return text.substr(0, text.size() - 1) + fmt::format(", \"timing\": \"{}\", \"cycles\": {}, \"host_ms\": {:.6g}}}",
                                                         vdla_timing_label(), stats.result.total_cycles, stats.host_ms);
  size_t ms = text.find(" ms ");
  if (ms != std::string::npos) text.insert(ms + 3, " (simulated)");
  return text;
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
  if (cl.target == "cuda") cl.arch = open_cuda_device(cl.arch).arch;  // "no CUDA device": exit 2 here
  TargetExecutors target(cl);  // a bad --mcpu or --vdla-config fails first
  target.trace_path = cl.trace;
  std::vector<Remark> remarks;  // --remarks: those of the op last lowered
  RunOptions options;
  options.target = cl.target;
  options.repeat = cl.repeat ? cl.repeat : (cl.target == "interp" || cl.target == "vdla" || cl.target == "cuda-interp" ? 1 : 10);
  options.seed = cl.seed;
  options.inputs_dir = cl.inputs_dir;
  options.save_io_dir = cl.save_io_dir;
  options.input_ranges = cl.input_ranges;
  options.threads = 1;
  if (cl.target == "cuda") {
    target.jit_repeat = options.repeat;
    options.repeat = 1;  // one execution = the checked launch and the timed ones
  } else if (cl.target == "x86") {
    if (int n = requested_threads(cl)) texrt_set_num_threads(n);
    options.threads = texrt_get_num_threads();
    target.jit_repeat = options.repeat;
    options.repeat = 1;  // one execution = one child process, which times its own calls
  } else if (cl.target == "arm") {
    check_arm_tools();  // a missing cross compiler or emulator: exit 2 before compiling anything
    target.arm.num_threads = arm_threads(cl);
    options.threads = target.arm.num_threads;
#if defined(__aarch64__)
    target.arm.repeat = cl.repeat ? cl.repeat : 10;
#else
    target.arm.repeat = cl.repeat ? cl.repeat : 3;  // under qemu-aarch64
#endif
    options.repeat = 1;  // one execution = one run of the driver, which times its own calls
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
      result = run_op(op, target.make_executor(op, lower_op_functions(op, cl, knobs_from_records(cl, op), &remarks)),
                      options);
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
    std::string text = cl.json ? format_result_json(result) : format_result_line(result);
    if ((cl.target == "x86" || cl.target == "cuda") && !target.jit_timing->times_ms.empty()) {
      result.median_ms = target.jit_timing->median_ms;
      result.gflops = result.median_ms > 0 ? count_flops(*defined) / (result.median_ms * 1e6) : 0;
      text = cl.json ? format_result_json(result) : format_result_line(result);
    }
    *target.jit_timing = JitTiming();
    if (cl.target == "arm" && !target.arm_timing->times_ms.empty()) {
      result.median_ms = target.arm_timing->median_ms;
      result.gflops = result.median_ms > 0 ? count_flops(*defined) / (result.median_ms * 1e6) : 0;
      text = label_arm_timing(cl.json ? format_result_json(result) : format_result_line(result), cl.json,
                              *target.arm_timing);
      *target.arm_timing = ArmRunResult();
    }
    if (cl.target == "vdla" && target.vdla_stats->ran) {
      // The simulated time (cycles at the nominal clock, as `texc tune` records it), not the time
      // the simulator took on this host, which is reported apart.
      target.vdla_stats->host_ms = result.median_ms;
      result.median_ms = vdla_cycles_to_ms(target.vdla_stats->result.total_cycles);
      result.gflops = result.median_ms > 0 ? count_flops(*defined) / (result.median_ms * 1e6) : 0;
      text = label_vdla_timing(cl.json ? format_result_json(result) : format_result_line(result), cl.json,
                               *target.vdla_stats);
    }
    if (cl.json && cl.remarks) text = with_remarks_json(text, remarks);
    remarks.clear();
    std::cout << text << std::endl;
    if (cl.target == "vdla" && target.vdla_stats->ran && !cl.json)
      std::cout << format_vdla_stats(*target.vdla_stats) << std::endl;
    *target.vdla_stats = VdlaRunStats();
  }
  return failed ? 1 : 0;
}

}  // namespace texc
