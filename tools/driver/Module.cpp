#include "tools/driver/Module.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "backends/interp/ReferenceInterpreter.h"
#include "backends/interp/RunOp.h"
#include "backends/execute/TimeCalls.h"
#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/KernelCalls.h"
#include "ir/Target.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/CudaExecutor.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/GraphReport.h"
#include "tools/driver/GraphDot.h"
#include "tools/driver/KnobOptions.h"
#include "tools/driver/LowerForTarget.h"
#include "tools/driver/ModuleOutput.h"
#include "tools/driver/RecordKnobs.h"
#include "tools/driver/TargetExecutors.h"
#include "tools/driver/TargetRegistry.h"
#include "tools/driver/VdlaExecutor.h"

namespace texc {

const CompiledOp& Module::op(const std::string& name) const {
  std::string names;
  for (const CompiledOp& c : ops_) {
    if (c.op.name == name) return c;
    names += (names.empty() ? "'" : ", '") + c.op.name + "'";
  }
  throw OptionError("the module has no op named '" + name + "' (its ops: " + names + ")");
}

std::vector<LoweredFunc> Module::functions() const {
  std::vector<LoweredFunc> funcs;
  for (const CompiledOp& c : ops_) funcs.insert(funcs.end(), c.functions.begin(), c.functions.end());
  return funcs;
}

namespace {

/// A host function of an op compiled as a graph of VDLA and host kernels (VdlaGraph.h: its target is
/// the host's, not the module's).
bool is_vdla_graph_host_function(const LoweredFunc& func) { return !func.target.empty(); }

}  // namespace

std::vector<std::string> Module::output_files(const std::string& kind, const std::string& path) const {
  std::vector<LoweredFunc> funcs = functions();
  if (generates_vdla_programs(options_.target) && (kind == "obj" || kind == "header") &&
      std::none_of(funcs.begin(), funcs.end(), is_vdla_graph_host_function))
    throw OptionError("--emit " + kind + " of target '" + options_.target + "' is the host part of an op compiled as a "
                      "graph of VDLA and host kernels (docs/graph.md), and no op here is one: each is one VDLA "
                      "program, which --emit vdla writes");
  if (kind != "vdla") return {path};
  std::string stem = path;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".vdla") == 0) stem.resize(stem.size() - 5);
  std::vector<std::string> files;
  for (const LoweredFunc& func : funcs) {
    if (is_vdla_graph_host_function(func)) continue;
    std::string file = (funcs.size() == 1 ? stem : stem + "." + func.name) + ".vdla";
    files.push_back(file);
    files.push_back(file + ".txt");
  }
  return files;
}

std::vector<std::string> Module::default_outputs() const {
  const Target* target = find_target(options_.target);
  TEXC_CHECK(target) << "compile() checked target '" << options_.target << "'";
  std::vector<std::string> outputs = target->default_outputs;
  std::vector<LoweredFunc> funcs = functions();
  if (generates_vdla_programs(options_.target) &&
      std::any_of(funcs.begin(), funcs.end(), is_vdla_graph_host_function))
    outputs.insert(outputs.end(), {"obj", "header"});
  return outputs;
}

void Module::write(const std::string& kind, const std::string& path) {
  const Target* target = find_target(options_.target);
  TEXC_CHECK(target) << "compile() checked target '" << options_.target << "'";
  if (std::string refusal = output_refusal(*target, kind); !refusal.empty()) throw OptionError(refusal);
  std::vector<LoweredFunc> funcs = functions();
  // The outputs every target has: the loop AST and the graph partition.
  if (kind == "graph") {
    std::string report;
    for (const CompiledOp& c : ops_) report += graph_report(c.op, options_, c.functions);
    write_output_text(path, report);
    return;
  }
  if (kind == "graph-dot") {
    std::vector<const OpDef*> ops;
    for (const CompiledOp& c : ops_) ops.push_back(&c.op);
    write_output_text(path, graph_dot(ops, options_));
    return;
  }
  if (kind == "loops") {
    std::string loops;
    for (const LoweredFunc& func : funcs) loops += to_string(func) + "\n";
    write_output_text(path, loops);
    return;
  }
  // The target's own code: its registry entry's emitter.
  const TargetBehaviour& behaviour = target_behaviour(options_.target);
  TEXC_CHECK(behaviour.write_output) << "output '" << kind << "' of '" << options_.target << "' passed output_refusal";
  ModuleOutput out{funcs, function_locs_, options_, cpu_, times_, output_files(kind, path)};
  behaviour.write_output(out, kind, path);
}

std::vector<Tensor> Module::arguments(const std::string& name) const {
  const OpDef& def = op(name).op;
  std::vector<Tensor> args;
  for (const Buffer& b : def.inputs) args.emplace_back(b->dtype, buffer_shape(b));
  for (const Buffer& b : def.outputs) {
    args.emplace_back(b->dtype, buffer_shape(b));
    args.back().fill_poison();
  }
  return args;
}

CallTimes Module::run(const std::string& name, std::vector<Tensor*> args, int repeat) const {
  const CompiledOp& compiled = op(name);
  const OpDef& def = compiled.op;
  TEXC_CHECK(args.size() == def.inputs.size() + def.outputs.size())
      << "Module::run of op '" << name << "' with " << args.size() << " tensors; it takes "
      << def.inputs.size() + def.outputs.size() << " (its inputs, then its outputs)";
  for (size_t i = 0; i < args.size(); ++i) {
    const Buffer& b = i < def.inputs.size() ? def.inputs[i] : def.outputs[i - def.inputs.size()];
    TEXC_CHECK(args[i] && args[i]->dtype() == b->dtype && args[i]->shape() == buffer_shape(b))
        << "Module::run of op '" << name << "': tensor " << i << " is not " << b->dtype.str() << " of the shape of '"
        << b->name << "'";
  }
  CompileOptions options = options_;
  const TargetBehaviour& behaviour = target_behaviour(options.target);
  if (behaviour.open_device) behaviour.open_device(options);
  TargetExecutors executors(options);
  repeat = std::max(repeat, 0);
  if (behaviour.times_own_calls) {  // the checked call and the timed rounds are one Executor::run
    executors.timed_rounds = repeat;
    executors.make_executor(def, compiled.functions)(args);
    return *executors.times;
  }
  // The interpreters and the simulator: the checked call, then `repeat` rounds of whole executions
  // (a graph's kernels one by one) timed by time_calls on copies of the outputs, so that the
  // outputs returned are the first call's.
  OpExecutor execute = executors.make_executor(def, compiled.functions);
  execute(args);
  std::vector<Tensor> scratch;
  std::vector<Tensor*> timed_args(args.begin(), args.begin() + def.inputs.size());
  for (size_t i = def.inputs.size(); i < args.size(); ++i) scratch.push_back(*args[i]);
  for (Tensor& t : scratch) timed_args.push_back(&t);
  return time_calls([&] { execute(timed_args); }, repeat);
}

std::vector<Tensor> Module::reference(const std::string& name, const std::vector<const Tensor*>& inputs) const {
  op(name);  // an op the module has
  if (!definitions_) definitions_ = std::make_shared<Program>(load_definitions(source_, options_));
  const OpDef* defined = nullptr;
  for (const OpDef& d : definitions_->ops)
    if (d.name == name) defined = &d;
  TEXC_CHECK(defined) << "op '" << name << "' has no definition";
  TEXC_CHECK(inputs.size() == defined->inputs.size())
      << "Module::reference of op '" << name << "' with " << inputs.size() << " inputs; it takes "
      << defined->inputs.size();
  ReferenceInterpreter interpreter(*defined, inputs);
  std::vector<Tensor> outputs;
  for (const Buffer& b : defined->outputs) outputs.push_back(interpreter.evaluate_all(b->name));
  return outputs;
}

Module compile_program(const Program& program, const ProgramSource& source, const CompileOptions& options) {
  PhaseClock whole;
  Module module;
  module.options_ = options;
  module.source_ = source;
  if (is_llvm_cpu_target(options.target)) module.cpu_ = cpu_target_options(options);
  module.times_.file = source.path;
  module.times_.target = options.target;
  for (const OpDef& op : program.ops) {
    PhaseClock lowering;
    CompiledOp compiled;
    compiled.op = op;
    compiled.record_knobs = knobs_from_records(options, op);
    compiled.knobs = compiled.record_knobs;
    for (const auto& [name, value] : knob_options_for(options, op)) compiled.knobs[name] = value;  // as lower_for_target
    compiled.functions = lower_op_functions(op, options, compiled.record_knobs, &compiled.remarks);
    for (size_t i = 0; i < compiled.functions.size(); ++i) module.function_locs_.push_back(op.loc);
    module.ops_.push_back(std::move(compiled));
    module.times_.lowering.emplace_back(op.name, lowering.elapsed());
  }
  module.times_.total = whole.elapsed();
  return module;
}

Module compile(const ProgramSource& source, CompileOptions options) {
  PhaseClock whole;
  if (options.target.empty()) options.target = host_target();
  if (!find_target(options.target))
    throw OptionError("unknown target '" + options.target + "' (expected " + target_names() + ")");
  if (is_llvm_cpu_target(options.target)) cpu_target_options(options);  // a bad mcpu fails before any work
  PhaseClock frontend;
  Program program = load_program(source, options);
  PhaseTime frontend_time = frontend.elapsed();
  Module module = compile_program(program, source, options);
  module.times_.frontend = frontend_time;
  module.times_.total = whole.elapsed();
  return module;
}

}  // namespace texc
