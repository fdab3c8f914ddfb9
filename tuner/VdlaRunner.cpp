#include "tuner/VdlaRunner.h"

#include <stdexcept>

#include "backends/vdla/Codegen.h"
#include "backends/vdla/RunProgram.h"

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
    vdla::VdlaProgram program = vdla::generate_program(func, config_, SourceLoc{});
    std::vector<vdla::HostTensor> host;
    for (Tensor* t : args) host.push_back({t->data(), size_t(t->num_bytes())});
    vdla::SimResult result = vdla::run_with_arguments(program, host);
    if (!result.ok()) throw std::runtime_error("the VDLA simulator stopped: " + result.error.message);
    double ms = vdla_cycles_to_ms(result.total_cycles);
    return std::vector<double>(size_t(std::max(repeat, 1)), ms);
  }

 private:
  vdla::VdlaConfig config_;
  std::string config_name_;
};

}  // namespace

std::unique_ptr<Runner> make_vdla_runner(const vdla::VdlaConfig& config, const std::string& config_name) {
  return std::make_unique<VdlaRunner>(config, config_name);
}

}  // namespace texc
