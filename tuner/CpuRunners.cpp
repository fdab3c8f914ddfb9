#include "tuner/CpuRunners.h"

#include <algorithm>
#include <fstream>

#include "backends/execute/ArmExecutor.h"
#include "backends/execute/InterpreterExecutors.h"
#include "backends/execute/JitExecutor.h"
#include "backends/llvm/CpuTargetMachine.h"

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

// Each runner runs a candidate through the Executor `texc run` runs the target's code through
// (backends/execute/Executor.h), in process: the measuring child is the isolation.

class X86Runner : public Runner {
 public:
  X86Runner(CpuTargetOptions target, std::map<std::string, void*> symbols)
      : target_(std::move(target)), symbols_(std::move(symbols)) {}
  std::string device() const override { return x86_device(target_); }
  Machine machine() const override { return x86_machine(target_); }
  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    return make_jit_executor({func}, target_, symbols_)->run(args, repeat).times_ms;
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
    return make_object_executor(object_, func, target_)->run(args, repeat).times_ms;
  }

 private:
  std::string object_;
  CpuTargetOptions target_;
};

class InterpRunner : public Runner {
 public:
  std::string device() const override { return "interp / loop interpreter on " + host_cpu_name(); }
  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    return make_loop_interpreter_executor(func)->run(args, repeat).times_ms;
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
    return make_arm_executor({func}, target_, options_)->run(args, repeat).times_ms;
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
  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    return make_arm_object_executor(parts_, func.name, options_)->run(args, repeat).times_ms;
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

}  // namespace texc
