#include "tuner/VdlaRunner.h"

#include <algorithm>

namespace texc {

namespace {

class VdlaRunner : public Runner {
 public:
  VdlaRunner(const vdla::VdlaConfig& config, std::string config_name) : config_(config), config_name_(std::move(config_name)) {}

  std::string device() const override {
    return "vdla / simulator (" + config_name_ + " configuration, cycles at a nominal " +
           std::to_string(int(kVdlaNominalClockMhz)) + " MHz)";
  }

  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    return make_vdla_executor(func, config_, SourceLoc{})->run(args, std::max(repeat, 1)).times_ms;
  }

 private:
  vdla::VdlaConfig config_;
  std::string config_name_;
};

class VdlaProgramRunner : public Runner {
 public:
  VdlaProgramRunner(vdla::VdlaProgram program, std::string device) : program_(std::move(program)), device_(std::move(device)) {}

  std::string device() const override { return device_; }

  std::vector<double> run(const LoweredFunc&, std::vector<Tensor*>& args, int repeat) override {
    return make_vdla_program_executor(program_)->run(args, std::max(repeat, 1)).times_ms;
  }

 private:
  vdla::VdlaProgram program_;
  std::string device_;
};

}  // namespace

std::unique_ptr<Runner> make_vdla_program_runner(vdla::VdlaProgram program, std::string device) {
  return std::make_unique<VdlaProgramRunner>(std::move(program), std::move(device));
}

std::unique_ptr<Runner> make_vdla_runner(const vdla::VdlaConfig& config, const std::string& config_name) {
  return std::make_unique<VdlaRunner>(config, config_name);
}

}  // namespace texc
