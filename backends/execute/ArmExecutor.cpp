#include "backends/execute/ArmExecutor.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "backends/interp/InterpError.h"

namespace texc {

namespace {

/// The entry run by run_on_arm on tensors: the inputs written out, the outputs read back into the
/// other tensors; the result keeps the times and drops the outputs.
ArmRunResult run_on_arm_with_tensors(const std::vector<LoweredFunc>& funcs, std::vector<Tensor*>& args,
                                     const CpuTargetOptions& target, const ArmRunOptions& options) {
  const LoweredFunc& func = funcs.back();
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<Tensor*> outputs;
  for (size_t i = 0; i < args.size() && i < func.args.size(); ++i) {
    if (func.args[i]->role == BufferRole::Input) {
      const uint8_t* data = static_cast<const uint8_t*>(args[i]->data());
      inputs.emplace_back(data, data + args[i]->num_bytes());
    } else {
      outputs.push_back(args[i]);
    }
  }
  ArmRunResult result = run_on_arm(funcs, func.name, inputs, target, options);
  if (result.outputs.size() != outputs.size())
    throw std::runtime_error("op " + func.name + " returned " + std::to_string(result.outputs.size()) +
                             " outputs, expected " + std::to_string(outputs.size()));
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (result.outputs[o].size() != outputs[o]->num_bytes())
      throw std::runtime_error("output " + std::to_string(o) + " of op " + func.name + " has " +
                               std::to_string(result.outputs[o].size()) + " bytes, expected " +
                               std::to_string(outputs[o]->num_bytes()));
    std::memcpy(outputs[o]->data(), result.outputs[o].data(), result.outputs[o].size());
  }
  result.outputs.clear();
  return result;
}

class ArmExecutor : public Executor {
 public:
  ArmExecutor(std::vector<LoweredFunc> funcs, CpuTargetOptions target, ArmRunOptions options)
      : funcs_(std::move(funcs)), target_(std::move(target)), options_(std::move(options)) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    ArmRunOptions options = options_;
    options.repeat = std::max(timed_rounds, 1);
    ArmRunResult result;
    try {
      result = run_on_arm_with_tensors(funcs_, args, target_, options);
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
  std::vector<LoweredFunc> funcs_;
  CpuTargetOptions target_;
  ArmRunOptions options_;
};

}  // namespace

std::unique_ptr<Executor> make_arm_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                                            const ArmRunOptions& options) {
  return std::make_unique<ArmExecutor>(funcs, target, options);
}

}  // namespace texc
