#include "tools/driver/ArmExecutor.h"

#include <cstring>

#include "backends/interp/InterpError.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "tools/driver/EnvironmentError.h"

namespace texc {

OpExecutor make_arm_executor(const LoweredFunc& func, const CpuTargetOptions& target, const ArmRunOptions& options,
                             std::shared_ptr<ArmRunResult> timing) {
  // On an aarch64 host the op runs natively: a CPU with features this one lacks would stop on an
  // illegal instruction (under qemu, elsewhere, every feature is emulated).
  if (std::string why = host_cannot_run(target); !why.empty()) throw EnvironmentError(why);
  return [func, target, options, timing](std::vector<Tensor*>& args) {
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
    ArmRunResult result;
    try {
      result = run_on_arm({func}, func.name, inputs, target, options);
    } catch (const MissingToolError&) {
      throw;
    } catch (const std::runtime_error& e) {
      throw InterpError(std::string("arm: ") + e.what());
    }
    if (result.outputs.size() != outputs.size())
      throw InterpError("arm: op " + func.name + " returned " + std::to_string(result.outputs.size()) +
                        " outputs, expected " + std::to_string(outputs.size()));
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (result.outputs[o].size() != outputs[o]->num_bytes())
        throw InterpError("arm: output " + std::to_string(o) + " of op " + func.name + " has " +
                          std::to_string(result.outputs[o].size()) + " bytes, expected " +
                          std::to_string(outputs[o]->num_bytes()));
      std::memcpy(outputs[o]->data(), result.outputs[o].data(), result.outputs[o].size());
    }
    result.outputs.clear();
    *timing = std::move(result);
  };
}

}  // namespace texc
