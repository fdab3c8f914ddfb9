#include "backends/execute/JitExecutor.h"

#include <stdexcept>

#include "backends/interp/InterpError.h"

namespace texc {

namespace {

using PackedFn = void (*)(void**);

class JitExecutor : public Executor {
 public:
  JitExecutor(std::shared_ptr<JitModule> jit, PackedFn packed, size_t num_inputs)
      : jit_(std::move(jit)), packed_(packed), num_inputs_(num_inputs) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    std::vector<void*> pointers;
    for (Tensor* t : args) pointers.push_back(t->data());
    return checked_then_timed(args, num_inputs_, [&] { packed_(pointers.data()); }, timed_rounds);
  }

 private:
  std::shared_ptr<JitModule> jit_;
  PackedFn packed_;
  size_t num_inputs_;
};

}  // namespace

std::unique_ptr<Executor> make_jit_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                                            const std::map<std::string, void*>& extern_symbols) {
  const LoweredFunc& entry = funcs.back();
  std::shared_ptr<JitModule> jit;
  try {
    jit = JitModule::create(funcs, target, extern_symbols);
  } catch (const TargetOptionError&) {
    throw;
  } catch (const std::runtime_error& e) {  // LLJIT could not link the module: this op fails, not texc
    throw InterpError(e.what());
  }
  auto packed = reinterpret_cast<PackedFn>(jit->lookup(entry.name + ".packed"));
  if (!packed) throw InterpError("the compiled module has no op named '" + entry.name + "'");
  return std::make_unique<JitExecutor>(std::move(jit), packed, count_inputs(entry));
}

std::unique_ptr<Executor> make_object_executor(const std::string& object, const LoweredFunc& entry,
                                               const CpuTargetOptions& target) {
  std::shared_ptr<JitModule> jit;
  try {
    jit = JitModule::load_object(object, {entry.name}, target);
  } catch (const TargetOptionError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw InterpError(e.what());
  }
  auto packed = reinterpret_cast<PackedFn>(jit->lookup(entry.name + ".packed"));
  if (!packed) throw InterpError("the shipped object has no op named '" + entry.name + "'");
  return std::make_unique<JitExecutor>(std::move(jit), packed, count_inputs(entry));
}

}  // namespace texc
