#include "tools/driver/JitExecutor.h"

#include <algorithm>
#include <cstring>

#include "backends/interp/InterpError.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "backends/llvm/TimeCalls.h"
#include "tools/driver/ChildProcess.h"
#include "tools/driver/EnvironmentError.h"

namespace texc {

namespace {

using PackedFn = void (*)(void**);

/// The times of the timed calls, written by the child into shared memory.
struct ChildTimes {
  int count;
  double ms[1];  // `repeat` entries: the memory is allocated with room for them
};

}  // namespace

OpExecutor make_jit_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                             const std::map<std::string, void*>& extern_symbols, int repeat,
                             std::shared_ptr<JitTiming> timing) {
  // Code for a CPU with features this host lacks would stop on an illegal instruction: say which.
  if (std::string why = host_cannot_run(target); !why.empty()) throw EnvironmentError(why);
  const LoweredFunc& func = funcs.back();
  std::shared_ptr<JitModule> jit;
  try {
    jit = JitModule::create(funcs, target, extern_symbols);
  } catch (const TargetOptionError&) {
    throw;
  } catch (const std::runtime_error& e) {  // LLJIT could not link the module: this op fails, not texc
    throw InterpError(e.what());
  }
  auto packed = reinterpret_cast<PackedFn>(jit->lookup(func.name + ".packed"));
  if (!packed) throw InterpError("the compiled module has no op named '" + func.name + "'");
  std::string what = "the compiled op '" + func.name + "'";
  size_t num_inputs = 0;
  for (const Buffer& b : func.args) num_inputs += b->role == BufferRole::Input;
  repeat = std::max(repeat, 0);
  return [jit, packed, what, num_inputs, repeat, timing](std::vector<Tensor*>& args) {
    SharedMemory times_memory(sizeof(ChildTimes) + sizeof(double) * size_t(repeat), "the times of " + what);
    auto* times = static_cast<ChildTimes*>(times_memory.data());
    times->count = 0;
    std::vector<Tensor*> outputs(args.begin() + std::min(num_inputs, args.size()), args.end());
    run_in_child_process(what, outputs, [&] {
      std::vector<void*> pointers;
      for (Tensor* t : args) pointers.push_back(t->data());
      packed(pointers.data());  // the checked call
      if (repeat == 0) return;
      // The outputs of the checked call are what comes back (a kernel wrong on its first call only
      // fails): kept aside while the timed calls overwrite the output buffers, then put back.
      std::vector<std::vector<char>> first_outputs;
      for (Tensor* t : outputs) {
        const char* data = static_cast<const char*>(t->data());
        first_outputs.emplace_back(data, data + t->num_bytes());
      }
      CallTimes timed = time_calls([&] { packed(pointers.data()); }, repeat);  // rounds of >= 1 ms (TimeCalls.h)
      std::copy(timed.times_ms.begin(), timed.times_ms.end(), times->ms);
      times->count = int(timed.times_ms.size());
      for (size_t o = 0; o < outputs.size(); ++o)
        std::memcpy(outputs[o]->data(), first_outputs[o].data(), first_outputs[o].size());
    });
    timing->times_ms.assign(times->ms, times->ms + times->count);
    timing->median_ms = median_of(timing->times_ms);
  };
}

}  // namespace texc
