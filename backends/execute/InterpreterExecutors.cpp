#include "backends/execute/InterpreterExecutors.h"

#include "backends/interp/CudaInterpreter.h"
#include "backends/interp/LoopInterpreter.h"

namespace texc {

namespace {

/// An interpreter (LoopInterpreter or CudaInterpreter), made once, run on each execution's tensors.
template <class Interpreter>
class InterpreterExecutor : public Executor {
 public:
  explicit InterpreterExecutor(const LoweredFunc& func) : interpreter_(func), num_inputs_(count_inputs(func)) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    return checked_then_timed(args, num_inputs_, [&] { interpreter_.run(args); }, timed_rounds);
  }

 private:
  Interpreter interpreter_;
  size_t num_inputs_;
};

}  // namespace

std::unique_ptr<Executor> make_loop_interpreter_executor(const LoweredFunc& func) {
  return std::make_unique<InterpreterExecutor<LoopInterpreter>>(func);
}

std::unique_ptr<Executor> make_cuda_interpreter_executor(const LoweredFunc& kernel) {
  return std::make_unique<InterpreterExecutor<CudaInterpreter>>(kernel);
}

}  // namespace texc
