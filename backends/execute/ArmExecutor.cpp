#include "backends/execute/ArmExecutor.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "backends/interp/InterpError.h"

namespace texc {

namespace {

/// One run of an arm program on tensors: the inputs (the first `num_inputs` of `args`) written out,
/// `run_program` run on them, the outputs read back into the other tensors; the result keeps the
/// times and drops the outputs.
using RunProgram = std::function<ArmRunResult(const std::vector<std::vector<uint8_t>>& inputs, const ArmRunOptions&)>;

ArmRunResult run_with_tensors(const RunProgram& run_program, const std::string& name, size_t num_inputs,
                              std::vector<Tensor*>& args, const ArmRunOptions& options) {
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < num_inputs && i < args.size(); ++i) {
    const uint8_t* data = static_cast<const uint8_t*>(args[i]->data());
    inputs.emplace_back(data, data + args[i]->num_bytes());
  }
  ArmRunResult result = run_program(inputs, options);
  size_t outputs = args.size() > num_inputs ? args.size() - num_inputs : 0;
  if (result.outputs.size() != outputs)
    throw std::runtime_error("op " + name + " returned " + std::to_string(result.outputs.size()) + " outputs, expected " +
                             std::to_string(outputs));
  for (size_t o = 0; o < outputs; ++o) {
    Tensor* t = args[num_inputs + o];
    if (result.outputs[o].size() != t->num_bytes())
      throw std::runtime_error("output " + std::to_string(o) + " of op " + name + " has " +
                               std::to_string(result.outputs[o].size()) + " bytes, expected " +
                               std::to_string(t->num_bytes()));
    std::memcpy(t->data(), result.outputs[o].data(), result.outputs[o].size());
  }
  result.outputs.clear();
  return result;
}

class ArmExecutor : public Executor {
 public:
  ArmExecutor(RunProgram run_program, std::string name, size_t num_inputs, ArmRunOptions options)
      : run_program_(std::move(run_program)), name_(std::move(name)), num_inputs_(num_inputs),
        options_(std::move(options)) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    ArmRunOptions options = options_;
    options.repeat = std::max(timed_rounds, 1);
    ArmRunResult result;
    try {
      result = run_with_tensors(run_program_, name_, num_inputs_, args, options);
    } catch (const MissingToolError&) {
      throw;
    } catch (const std::runtime_error& e) {
      throw InterpError(std::string("arm: ") + e.what());
    }
    CallTimes times;
    times.label = result.timing_label();
    if (timed_rounds > 0) {
      times.times_ms = result.times_ms;
      times.median_ms = result.median_ms;
    }
    return times;
  }

 private:
  RunProgram run_program_;
  std::string name_;
  size_t num_inputs_;
  ArmRunOptions options_;
};

}  // namespace

std::unique_ptr<Executor> make_arm_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                                            const ArmRunOptions& options) {
  const std::string name = funcs.back().name;
  RunProgram run = [funcs, target, name](const std::vector<std::vector<uint8_t>>& inputs, const ArmRunOptions& o) {
    return run_on_arm(funcs, name, inputs, target, o);
  };
  return std::make_unique<ArmExecutor>(std::move(run), name, count_inputs(funcs.back()), options);
}

std::unique_ptr<Executor> make_arm_object_executor(const ArmProgramParts& parts, const std::string& name,
                                                   const ArmRunOptions& options) {
  RunProgram run = [parts](const std::vector<std::vector<uint8_t>>& inputs, const ArmRunOptions& o) {
    return run_arm_object(parts, inputs, o);
  };
  return std::make_unique<ArmExecutor>(std::move(run), name, parts.input_bytes.size(), options);
}

}  // namespace texc
