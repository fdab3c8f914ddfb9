#include "tools/driver/CudaRunner.h"

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

}  // namespace

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
