#include "tools/driver/CudaRunner.h"

#include <algorithm>

#include "tools/driver/CudaExecutor.h"
#include "tools/driver/EnvironmentError.h"
#include "backends/execute/ChildRun.h"

namespace texc {

namespace {

class CudaRunner : public Runner {
 public:
  CudaRunner(std::string device_name, std::string arch) : name_(std::move(device_name)), arch_(std::move(arch)) {}

  std::string device() const override { return "cuda / " + name_ + " (" + arch_ + ")"; }

  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    CudaTargetOptions target;
    target.arch = arch_;
    return make_cuda_executor(func, target)->run(args, std::max(repeat, 1)).times_ms;
  }

 private:
  std::string name_, arch_;
};

class CudaPtxRunner : public Runner {
 public:
  CudaPtxRunner(std::string ptx, const CudaLaunchConfig& launch, size_t num_inputs, std::string device)
      : ptx_(std::move(ptx)), launch_(launch), num_inputs_(num_inputs), device_(std::move(device)) {}

  std::string device() const override { return device_; }

  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    return make_cuda_ptx_executor(ptx_, func.name, launch_, num_inputs_)->run(args, std::max(repeat, 1)).times_ms;
  }

 private:
  std::string ptx_;
  CudaLaunchConfig launch_;
  size_t num_inputs_;
  std::string device_;
};

}  // namespace

std::string cuda_arch_of_device(const std::string& device) {
  if (device.rfind("cuda / ", 0) != 0 || device.empty() || device.back() != ')') return "";
  size_t open = device.rfind(" (");
  if (open == std::string::npos) return "";
  std::string arch = device.substr(open + 2, device.size() - open - 3);
  return arch.rfind("sm_", 0) == 0 ? arch : "";
}

std::unique_ptr<Runner> make_cuda_ptx_runner(std::string ptx, const CudaLaunchConfig& launch, size_t num_inputs,
                                             std::string device) {
  return std::make_unique<CudaPtxRunner>(std::move(ptx), launch, num_inputs, std::move(device));
}

std::unique_ptr<Runner> make_cuda_runner(const std::string& requested_arch) {
  ChildOutcome probe = run_in_child([&](ChildChannel& parent) {  // "ok\nNAME\nARCH" or "error\nMESSAGE"
    try {
      CudaDeviceInfo info = open_cuda_device(requested_arch);
      parent.send("ok\n" + info.name + "\n" + info.arch);
    } catch (const std::exception& e) {
      parent.send(std::string("error\n") + e.what());
    }
  });
  if (probe.end == ChildOutcome::End::CannotStart) throw EnvironmentError(probe.message);
  const std::string& answer = probe.data;
  auto line_end = answer.find('\n');
  std::string verdict = answer.substr(0, line_end);
  std::string rest = line_end == std::string::npos ? "" : answer.substr(line_end + 1);
  if (verdict != "ok") {
    if (rest.empty()) rest = "no CUDA device: the probe of CUDA device 0 ended without an answer";
    throw EnvironmentError(rest);
  }
  auto name_end = rest.find('\n');
  return std::make_unique<CudaRunner>(rest.substr(0, name_end), name_end == std::string::npos ? "" : rest.substr(name_end + 1));
}

}  // namespace texc
