#include "backends/execute/VdlaExecutor.h"

#include "backends/interp/InterpError.h"
#include "backends/vdla/Codegen.h"
#include "backends/vdla/RunProgram.h"

namespace texc {

namespace {

class VdlaExecutor : public Executor {
 public:
  VdlaExecutor(vdla::VdlaProgram program, VdlaRunObserver observe, bool record_timeline)
      : program_(std::move(program)), observe_(std::move(observe)), record_timeline_(record_timeline) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    std::vector<vdla::HostTensor> host;
    for (Tensor* t : args) host.push_back({t->data(), size_t(t->num_bytes())});
    vdla::SimOptions options;
    options.record_timeline = record_timeline_;
    vdla::SimResult result = vdla::run_with_arguments(program_, host, options);
    if (!result.ok()) throw InterpError("the VDLA simulator stopped: " + result.error.message);
    CallTimes times;
    times.label = vdla_timing_label();
    if (timed_rounds > 0) {
      times.median_ms = vdla_cycles_to_ms(result.total_cycles);
      times.times_ms.assign(size_t(timed_rounds), times.median_ms);
    }
    if (observe_) observe_(program_, result);
    return times;
  }

 private:
  vdla::VdlaProgram program_;
  VdlaRunObserver observe_;
  bool record_timeline_;
};

}  // namespace

std::unique_ptr<Executor> make_vdla_executor(const LoweredFunc& func, const vdla::VdlaConfig& config, SourceLoc loc,
                                             VdlaRunObserver observe, bool record_timeline) {
  return make_vdla_program_executor(vdla::generate_program(func, config, loc), std::move(observe), record_timeline);
}

std::unique_ptr<Executor> make_vdla_program_executor(vdla::VdlaProgram program, VdlaRunObserver observe,
                                                     bool record_timeline) {
  return std::make_unique<VdlaExecutor>(std::move(program), std::move(observe), record_timeline);
}

}  // namespace texc
