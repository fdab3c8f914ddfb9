#include "tuner/CpuRunners.h"

#include <chrono>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "backends/interp/LoopInterpreter.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "backends/llvm/TimeCalls.h"

namespace texc {

std::string host_cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
  }
  return "unknown CPU";
}

std::string x86_device(const CpuTargetOptions& target) {
  return "x86 / " + host_cpu_name() + " (" + resolve_cpu_target(target).cpu + ")";
}

Machine x86_machine(const CpuTargetOptions& target) {
  ResolvedCpuTarget resolved = resolve_cpu_target(target);
  Machine m{host_cpu_name(), resolved.triple, resolved.cpu, {}};
  std::vector<std::string> missing = missing_cpu_features(target, relevant_cpu_features());
  for (const std::string& f : relevant_cpu_features())
    if (std::find(missing.begin(), missing.end(), f) == missing.end()) m.features.push_back(f);
  std::sort(m.features.begin(), m.features.end());
  return m;
}

Machine machine_of_legacy_x86_record(const Record& r) {
  const std::string prefix = "x86 / ";
  size_t open = r.device.rfind(" (");
  if (r.target != "x86" || r.device.rfind(prefix, 0) != 0 || open == std::string::npos || r.device.back() != ')')
    return {};
  CpuTargetOptions target;
  target.arch = "x86";
  target.mcpu = r.device.substr(open + 2, r.device.size() - open - 3);
  try {
    Machine m = x86_machine(target);
    m.name = r.device.substr(prefix.size(), open - prefix.size());
    return m;
  } catch (const TargetOptionError&) {  // a CPU this LLVM does not know
    return {};
  }
}

void name_legacy_x86_machines(std::vector<Record>& records) {
  for (Record& r : records)
    if (!r.machine.known() && r.target == "x86") r.machine = machine_of_legacy_x86_record(r);
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

class X86Runner : public Runner {
 public:
  X86Runner(CpuTargetOptions target, std::map<std::string, void*> symbols)
      : target_(std::move(target)), symbols_(std::move(symbols)) {}
  std::string device() const override { return x86_device(target_); }
  Machine machine() const override { return x86_machine(target_); }
  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    std::unique_ptr<JitModule> jit = JitModule::create({func}, target_, symbols_);
    using PackedFn = void (*)(void**);
    auto packed = reinterpret_cast<PackedFn>(jit->lookup(func.name + ".packed"));
    if (!packed) throw std::runtime_error("the compiled module has no op named '" + func.name + "'");
    std::vector<void*> pointers;
    for (Tensor* t : args) pointers.push_back(t->data());
    packed(pointers.data());  // the checked call
    return time_calls([&] { packed(pointers.data()); }, repeat).times_ms;  // rounds of >= 1 ms (TimeCalls.h)
  }

 private:
  CpuTargetOptions target_;
  std::map<std::string, void*> symbols_;
};

/// X86Runner's measurement of an object compiled elsewhere (emit_packed_object): the op named by
/// the candidate's func is linked from `object`, not compiled from the func's body.
class X86ObjectRunner : public Runner {
 public:
  X86ObjectRunner(std::string object, CpuTargetOptions target) : object_(std::move(object)), target_(std::move(target)) {}
  std::string device() const override { return x86_device(target_); }
  Machine machine() const override { return x86_machine(target_); }
  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    std::unique_ptr<JitModule> jit = JitModule::load_object(object_, {func.name}, target_);
    using PackedFn = void (*)(void**);
    auto packed = reinterpret_cast<PackedFn>(jit->lookup(func.name + ".packed"));
    if (!packed) throw std::runtime_error("the shipped object has no op named '" + func.name + "'");
    std::vector<void*> pointers;
    for (Tensor* t : args) pointers.push_back(t->data());
    packed(pointers.data());  // the checked call
    return time_calls([&] { packed(pointers.data()); }, repeat).times_ms;  // as X86Runner
  }

 private:
  std::string object_;
  CpuTargetOptions target_;
};

class InterpRunner : public Runner {
 public:
  std::string device() const override { return "interp / loop interpreter on " + host_cpu_name(); }
  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    LoopInterpreter interp(func);
    std::vector<Tensor*> a = args;
    interp.run(a);
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
      auto start = Clock::now();
      interp.run(a);
      times.push_back(ms_since(start));
    }
    return times;
  }
};

class ArmRunner : public Runner {
 public:
  ArmRunner(CpuTargetOptions target, ArmRunOptions options) : target_(std::move(target)), options_(std::move(options)) {}
  std::string device() const override {
#if defined(__aarch64__)
    return "arm / " + host_cpu_name();
#else
    return "arm / qemu-aarch64 (emulated)";
#endif
  }
  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    ArmRunOptions options = options_;
    options.repeat = repeat;
    return run_on_arm_with_tensors(func, args, target_, options).times_ms;
  }

 private:
  CpuTargetOptions target_;
  ArmRunOptions options_;
};

/// ArmRunner's measurement of an op compiled elsewhere (arm_program_parts): linked with its driver
/// and run, not compiled.
class ArmObjectRunner : public Runner {
 public:
  ArmObjectRunner(ArmProgramParts parts, ArmRunOptions options) : parts_(std::move(parts)), options_(std::move(options)) {}
  std::string device() const override { return ArmRunner({}, {}).device(); }
  std::vector<double> run(const LoweredFunc&, std::vector<Tensor*>& args, int repeat) override {
    size_t inputs = parts_.input_bytes.size();
    if (args.size() != inputs + parts_.output_bytes.size())
      throw std::runtime_error("the arm program takes " + std::to_string(inputs + parts_.output_bytes.size()) +
                               " arguments, the op " + std::to_string(args.size()));
    std::vector<std::vector<uint8_t>> in;
    for (size_t i = 0; i < inputs; ++i) {
      const uint8_t* data = static_cast<const uint8_t*>(args[i]->data());
      in.emplace_back(data, data + args[i]->num_bytes());
    }
    ArmRunOptions options = options_;
    options.repeat = repeat;
    ArmRunResult r = run_arm_object(parts_, in, options);
    for (size_t o = 0; o < r.outputs.size(); ++o) {
      Tensor* t = args[inputs + o];
      if (int64_t(t->num_bytes()) != int64_t(r.outputs[o].size()))
        throw std::runtime_error("output " + std::to_string(o) + " of the arm program has " +
                                 std::to_string(r.outputs[o].size()) + " bytes, the op's " + std::to_string(t->num_bytes()));
      std::memcpy(t->data(), r.outputs[o].data(), r.outputs[o].size());
    }
    return r.times_ms;
  }

 private:
  ArmProgramParts parts_;
  ArmRunOptions options_;
};

}  // namespace

std::unique_ptr<Runner> make_arm_object_runner(const ArmProgramParts& parts, const ArmRunOptions& options) {
  return std::make_unique<ArmObjectRunner>(parts, options);
}

std::unique_ptr<Runner> make_x86_runner(const CpuTargetOptions& target, std::map<std::string, void*> extern_symbols) {
  return std::make_unique<X86Runner>(target, std::move(extern_symbols));
}
std::unique_ptr<Runner> make_x86_object_runner(const std::string& object, const CpuTargetOptions& target) {
  return std::make_unique<X86ObjectRunner>(object, target);
}
std::unique_ptr<Runner> make_interp_runner() { return std::make_unique<InterpRunner>(); }
std::unique_ptr<Runner> make_arm_runner(const CpuTargetOptions& target, const ArmRunOptions& options) {
  return std::make_unique<ArmRunner>(target, options);
}

ArmRunResult run_on_arm_with_tensors(const LoweredFunc& func, std::vector<Tensor*>& args, const CpuTargetOptions& target,
                                     const ArmRunOptions& options) {
  return run_on_arm_with_tensors({func}, func, args, target, options);
}

ArmRunResult run_on_arm_with_tensors(const std::vector<LoweredFunc>& funcs, const LoweredFunc& func,
                                     std::vector<Tensor*>& args, const CpuTargetOptions& target,
                                     const ArmRunOptions& options) {
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

}  // namespace texc
