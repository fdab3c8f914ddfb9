#include "tools/driver/GraphCheck.h"

#include <deque>
#include <limits>
#include <map>

#include "backends/interp/Check.h"
#include "backends/interp/InterpError.h"
#include "backends/interp/ReferenceInterpreter.h"
#include "ir/Diagnostics.h"
#include "lower/SplitPrepare.h"
#include "tools/driver/LowerForTarget.h"

namespace texc {

namespace {

struct Part {
  const OpDef* op;
  const LoweredFunc* func;
  std::string label;  // "kernel resnet_k1 (stages ...)"
};

std::string label_of(const std::string& what, const OpDef& op) {
  std::string stages;
  for (const Stage& s : op.stages) stages += (stages.empty() ? "" : ", ") + s.name;
  return what + " " + op.name + " (stages " + stages + ")";
}

}  // namespace

PartsCheck check_graph_parts(const OpDef& op, const std::vector<LoweredFunc>& funcs, TargetExecutors& executors,
                             const std::vector<Tensor*>& inputs, const RunOptions& options) {
  std::optional<PreparedOp> split = split_prepare(op);
  const OpDef main = split ? split->main : op;
  std::optional<GraphOps> graph = graph_of(main, executors.options);
  TEXC_CHECK(graph && funcs.size() == graph->kernels.size() + 1 + (split ? 1 : 0))
      << "op '" << op.name << "' checked as a graph, but it compiled to " << funcs.size() << " functions";
  std::vector<Part> parts;
  if (split) parts.push_back({&split->prepare, &funcs[0], label_of("prepare function", split->prepare)});
  for (size_t k = 0; k < graph->kernels.size(); ++k)
    parts.push_back({&graph->kernels[k].op, &funcs[k + (split ? 1 : 0)], label_of("kernel", graph->kernels[k].op)});

  // Untimed single runs of each part, writing no trace (vdla's --trace is the run's).
  const int timed_rounds = executors.timed_rounds;
  const std::string trace_path = executors.trace_path;
  executors.timed_rounds = 0;
  executors.trace_path.clear();
  std::vector<OpExecutor> run;
  for (const Part& p : parts) run.push_back(executors.make_function_executor(*p.func, *p.op));
  executors.timed_rounds = timed_rounds;
  executors.trace_path = trace_path;

  PartsCheck result;
  std::map<std::string, Tensor*> by_name;
  for (size_t i = 0; i < op.inputs.size(); ++i) by_name[op.inputs[i]->name] = inputs.at(i);
  std::deque<Tensor> produced;
  for (size_t p = 0; p < parts.size(); ++p) {
    const OpDef& part = *parts[p].op;
    std::vector<Tensor*> args;
    std::vector<const Tensor*> part_inputs;
    for (const Buffer& b : part.inputs) {
      args.push_back(by_name.at(b->name));
      part_inputs.push_back(args.back());
    }
    for (const Buffer& b : part.outputs) {
      produced.emplace_back(b->dtype, buffer_shape(b));
      produced.back().fill_poison();
      args.push_back(&produced.back());
      by_name[b->name] = &produced.back();
    }
    // The reference's values first (it may prove the part wrong on these inputs), then the run.
    std::vector<ExpectedOutput> expected;
    std::vector<CheckOptions> checks;
    try {
      ReferenceInterpreter reference(part, part_inputs);
      double flops = count_flops(part);
      for (size_t o = 0; o < part.outputs.size(); ++o) {
        CheckOptions check = options.check;
        check.seed = options.seed * 31 + 7 * p + o;
        check.accumulation_length = accumulation_length(part, part.outputs[o]->name);
        if (options.check_mode == CheckMode::Full)
          check.full_check_limit = std::numeric_limits<int64_t>::max();
        else if (flops > options.full_check_max_flops)
          check.full_check_limit = std::min(check.full_check_limit, check.sample_points);
        expected.push_back(expected_output(reference, part.outputs[o]->name, check));
        checks.push_back(check);
        if (!expected.back().error.empty()) {
          result.failure = parts[p].label + ": " + expected.back().error + " (so it was not run)";
          return result;
        }
      }
      run[p](args);
    } catch (const InterpError& e) {
      result.failure = parts[p].label + ": " + e.what();
      return result;
    } catch (const AllocationError& e) {
      result.failure = parts[p].label + ": " + e.what();
      return result;
    }
    if (!split || p > 0) ++result.parts;  // the kernels
    for (size_t o = 0; o < part.outputs.size(); ++o) {
      CheckResult c = compare_output(expected[o], *args[part.inputs.size() + o], checks[o]);
      result.points_checked += c.points_checked;
      result.max_rel_err = std::max(result.max_rel_err, c.max_rel_err);
      result.sampled = result.sampled || c.sampled;
      if (!c.passed) {
        result.failure = parts[p].label + ": " + c.message;
        return result;
      }
    }
  }
  for (const Buffer& b : op.outputs) result.outputs.push_back(*by_name.at(b->name));
  return result;
}

}  // namespace texc
