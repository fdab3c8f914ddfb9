#include "tools/driver/TargetExecutors.h"

#include <map>

#include "backends/interp/CudaInterpreter.h"
#include "backends/interp/LoopInterpreter.h"
#include "ir/Diagnostics.h"
#include "ir/Target.h"
#include "lower/SplitPrepare.h"
#include "tools/driver/ArmExecutor.h"
#include "tools/driver/ChildProcess.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/CudaExecutor.h"
#include "tools/driver/GraphExecutor.h"
#include "tools/driver/LowerForTarget.h"

namespace texc {

namespace {

/// cuda-interp: the kernel's threads run phase by phase between barriers on the loop
/// interpreter, checked for data races (backends/interp/CudaInterpreter.h); a race, or a barrier
/// part of a block misses, is a FAIL line.
OpExecutor make_cuda_interp_executor(const LoweredFunc& func) {
  auto interp = std::make_shared<CudaInterpreter>(func);
  return [interp](std::vector<Tensor*>& args) { interp->run(args); };
}

}  // namespace

TargetExecutors::TargetExecutors(const CompileOptions& opts) : options(opts), externs(opts) {
  if (is_llvm_cpu_target(opts.target)) cpu = cpu_target_options(opts);
  if (opts.target == "vdla") vdla_config = vdla_config_of(opts);
}


OpExecutor TargetExecutors::make_executor(const OpDef& op, const std::vector<LoweredFunc>& funcs) {
  std::optional<PreparedOp> halves = funcs.size() == 1 ? std::nullopt : split_prepare(op);
  if (!halves) return make_main_executor(op, funcs);
  std::shared_ptr<PreparedOp> split = std::make_shared<PreparedOp>(*halves);
  const int timed_repeat = jit_repeat, arm_repeat = arm.repeat;
  jit_repeat = 0;  // the prepare function: its checked call only
  arm.repeat = 1;
  OpExecutor prepare = make_function_executor(funcs[0], split->prepare);
  jit_repeat = timed_repeat;
  arm.repeat = arm_repeat;
  OpExecutor main = make_main_executor(split->main, std::vector<LoweredFunc>(funcs.begin() + 1, funcs.end()));
  return [split, prepare, main, op](std::vector<Tensor*>& args) {
    std::map<std::string, Tensor*> by_name;
    for (size_t i = 0; i < op.inputs.size() && i < args.size(); ++i) by_name[op.inputs[i]->name] = args[i];
    std::vector<Tensor> prepared;
    prepared.reserve(split->prepare.outputs.size());
    std::vector<Tensor*> prepare_args;
    for (const Buffer& b : split->prepare.inputs) prepare_args.push_back(by_name.at(b->name));
    for (const Buffer& b : split->prepare.outputs) {
      prepared.emplace_back(b->dtype, buffer_shape(b));
      prepared.back().fill_poison();
      prepare_args.push_back(&prepared.back());
      by_name[b->name] = &prepared.back();
    }
    prepare(prepare_args);
    std::vector<Tensor*> main_args;
    for (const Buffer& b : split->main.inputs) main_args.push_back(by_name.at(b->name));
    main_args.insert(main_args.end(), args.begin() + std::min(op.inputs.size(), args.size()), args.end());
    main(main_args);
  };
}

OpExecutor TargetExecutors::make_main_executor(const OpDef& op, const std::vector<LoweredFunc>& funcs) {
  if (funcs.size() == 1) return make_function_executor(funcs[0], op);
  // A graph of kernels, then its host entry (docs/graph.md).
  std::vector<LoweredFunc> kernels(funcs.begin(), funcs.end() - 1);
  if (options.target == "x86") {
    std::map<std::string, void*> symbols;
    for (const LoweredFunc& k : kernels) symbols.merge(externs.jit_symbols(k));
    return make_jit_executor(funcs, *cpu, symbols, jit_repeat, jit_timing);
  }
  if (options.target == "arm") {
    ArmRunOptions options = arm;
    for (const LoweredFunc& k : kernels) options.extra_link_inputs = externs.arm_link_inputs(k);
    return make_arm_executor(funcs, *cpu, options, arm_timing);
  }
  // interp: the kernels one by one (the loop interpreter runs no calls between lowered functions).
  std::optional<GraphOps> graph = graph_of(op, options);
  TEXC_CHECK(graph && graph->kernels.size() == kernels.size())
      << "op '" << op.name << "' compiled to " << kernels.size() << " kernels and an entry, but is no such graph";
  std::vector<OpExecutor> executors;
  for (size_t k = 0; k < kernels.size(); ++k) executors.push_back(make_function_executor(kernels[k], graph->kernels[k].op));
  auto shared = std::make_shared<GraphOps>(std::move(*graph));
  return [op, shared, executors](std::vector<Tensor*>& args) { run_graph(op, *shared, executors, args); };
}

OpExecutor TargetExecutors::make_function_executor(const LoweredFunc& func, const OpDef& op) {
  if (options.target == "interp") {
    externs.register_with_loop_interpreter(func);
    auto interp = std::make_shared<LoopInterpreter>(func);
    bool calls_libraries = !extern_calls({func}).empty() && (!options.extern_libs.empty() || !options.extern_srcs.empty());
    if (!calls_libraries) return [interp](std::vector<Tensor*>& args) { interp->run(args); };
    // C functions from --extern-lib/--extern-src can fault: the interpreter runs in a child.
    std::string what = "op '" + op.name + "' (with its extern functions)";
    size_t num_inputs = op.inputs.size();
    return [interp, what, num_inputs](std::vector<Tensor*>& args) {
      std::vector<Tensor*> outputs(args.begin() + std::min(num_inputs, args.size()), args.end());
      run_in_child_process(what, outputs, [&] { interp->run(args); });
    };
  }
  if (options.target == "cuda-interp") return make_cuda_interp_executor(func);
  if (options.target == "vdla") return make_vdla_executor(func, *vdla_config, op.loc, vdla_stats, trace_path);
  if (options.target == "x86") return make_jit_executor({func}, *cpu, externs.jit_symbols(func), jit_repeat, jit_timing);
  if (options.target == "cuda") {
    CudaTargetOptions cuda;
    cuda.arch = options.arch;  // open_cuda_device chose it when --arch was not given
    return make_cuda_executor(func, cuda, jit_repeat, jit_timing);
  }
  ArmRunOptions options = arm;
  options.extra_link_inputs = externs.arm_link_inputs(func);
  return make_arm_executor({func}, *cpu, options, arm_timing);
}

}  // namespace texc
