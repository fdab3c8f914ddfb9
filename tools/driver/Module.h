// texc as a library (docs/library.md): compile(source, options) -> Module.
//
// compile() runs what `texc FILE --target T` runs: the front end (-D, -I, op), the knobs of each op
// (fixed ones from options.knobs, the others from tuning records: RecordKnobs.h), and the lowering
// of each op for options.target, an op with `const` inputs feeding stages of their own split into
// <op>_prepare and <op> (lower/SplitPrepare.h). The Module holds the result; it writes the target's
// outputs (ir/Target.h: obj, asm, llvm, header, loops, ptx, vdla) and runs an op on the host on
// tensors the caller owns, or evaluates it with the reference interpreter.
//
// Errors are exceptions, never an exit or an abort: a mistake in the source is a UserError (its
// `diag` is the `file:line:col: error:` diagnostic; print_diagnostic prints it with the caret); an
// option the library cannot use is an OptionError (an unknown target, an output the target does not
// write, a records file that does not exist, an op the module does not have); a CPU option LLVM
// does not know is a TargetOptionError; something this machine or build lacks (a tool, a device, a
// file that cannot be written) is an EnvironmentError; a bug in texc, or a call that breaks a
// precondition documented here, is an InternalError (TEXC_CHECK, ir/Diagnostics.h).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/interp/Tensor.h"
#include "backends/llvm/LLVMBackend.h"
#include "frontend/Frontend.h"
#include "ir/Function.h"
#include "ir/Op.h"
#include "ir/Remark.h"
#include "ir/Schedule.h"
#include "tools/driver/CompileOptions.h"
#include "tools/driver/CompileTimes.h"
#include "tools/driver/LoadProgram.h"
#include "backends/execute/TimeCalls.h"  // CallTimes: the times of Module::run

namespace texc {

/// One op of the source as compiled.
struct CompiledOp {
  OpDef op;                            // as elaborated for the target (a `compute TARGET` block applied)
  std::vector<LoweredFunc> functions;  // the op, or <op>_prepare then <op> (a graph: [<op>_prepare,]
                                       // <op>_k0.. then the entry <op>, docs/graph.md); each says its kind
                                       // (FunctionKind::Host or Device)
  KnobConfig knobs;                    // the knobs it was lowered with: the records' choice, the fixed
                                       // knobs (options.knobs) over it; a knob not here took its first value
  KnobConfig record_knobs;             // the part chosen from tuning records
  std::vector<Remark> remarks;         // the lowering's remarks (with options.remarks)
};

class Module {
 public:
  const CompileOptions& options() const { return options_; }
  const std::string& target() const { return options_.target; }
  /// The ops, in source order.
  const std::vector<CompiledOp>& ops() const { return ops_; }
  /// The op named `name`; throws OptionError naming the ops there are.
  const CompiledOp& op(const std::string& name) const;
  /// Every lowered function, in order (what an object file or header holds).
  std::vector<LoweredFunc> functions() const;
  /// The front end's and the lowering's times (and LLVM's, once an object was written).
  const CompileTimes& times() const { return times_; }

  /// The files write(kind, path) writes: `path`, except for vdla, which writes PATH and PATH.txt
  /// (the listing) per VDLA program: one function in all: PATH (OUT.vdla); several: OUT.FUNC.vdla
  /// each. On vdla, obj and header are the host part of the ops compiled as graphs of VDLA and host
  /// kernels (VdlaGraph.h); asking for them with no such op is an OptionError.
  std::vector<std::string> output_files(const std::string& kind, const std::string& path) const;
  /// What `texc FILE -o OUT` writes without --emit: the target's default outputs (ir/Target.h), and
  /// on vdla also obj and header when an op is a graph of VDLA and host kernels.
  std::vector<std::string> default_outputs() const;
  /// Writes output `kind` to `path` ("-": standard output, for a text output), whole or not at all
  /// (OutputFile.h); never over a file compile() read. An output the target does not write is an
  /// OptionError; a file that cannot be written an EnvironmentError. loops, graph and graph-dot
  /// are written here for every target; the target's own code by its registry entry's emitter
  /// (TargetBehaviour::write_output, TargetRegistry.h).
  void write(const std::string& kind, const std::string& path);

  /// One tensor per argument of op `name` (its inputs, then its outputs) with the element type and
  /// shape of each, inputs zero-filled and outputs filled with NaN or a byte pattern: what run and
  /// reference take.
  std::vector<Tensor> arguments(const std::string& name) const;
  /// Runs op `name` on `args` (its inputs, then its outputs, as arguments() makes them) on this host
  /// through the target's Executor (backends/execute/Executor.h, TargetExecutors.h): x86
  /// JIT-compiled in a child process, interp and cuda-interp on the loop interpreter, arm under the
  /// arm runner, vdla on the simulator, cuda on device 0. The outputs are those of the first call;
  /// then `repeat` timed rounds: the executor's own (x86: time_calls, TimeCalls.h; arm: the driver's
  /// clock; cuda: CUDA events), else time_calls around whole executions (interp, cuda-interp, vdla:
  /// the simulator's host time). Compiled code that faults is an InterpError
  /// (backends/interp/InterpError.h), not a crash of the caller. `args` of the wrong count, element
  /// type or shape break the precondition: InternalError.
  CallTimes run(const std::string& name, std::vector<Tensor*> args, int repeat = 0) const;
  /// The outputs of op `name` as the reference interpreter evaluates its definition on `inputs`
  /// (one per op input), in the op's output order.
  std::vector<Tensor> reference(const std::string& name, const std::vector<const Tensor*>& inputs) const;

 private:
  friend Module compile_program(const Program& program, const ProgramSource& source, const CompileOptions& options);
  friend Module compile(const ProgramSource& source, CompileOptions options);
  CompileOptions options_;
  ProgramSource source_;
  std::vector<CompiledOp> ops_;
  std::vector<SourceLoc> function_locs_;  // the op of each of functions()
  std::optional<CpuTargetOptions> cpu_;
  CompileTimes times_;
  mutable std::shared_ptr<Program> definitions_;  // the ops as defined (reference), read when first needed
};

/// Compiles every op of `source` (or options.op) for options.target (default: the host's CPU
/// target, "x86" on x86-64). Throws UserError, OptionError, TargetOptionError, EnvironmentError.
Module compile(const ProgramSource& source, CompileOptions options);

/// compile() for a program the front end has read already (load_program, LoadProgram.h): the
/// records' knobs and the lowering of each op.
Module compile_program(const Program& program, const ProgramSource& source, const CompileOptions& options);

}  // namespace texc
