#include "backends/execute/JitExecutor.h"

#include <stdexcept>

#include "backends/interp/InterpError.h"
#include "ir/CallerWorkspace.h"
#include "ir/KernelScratch.h"
#include "runtime/texrt.h"

namespace texc {

namespace {

using PackedFn = void (*)(void**);

/// A workspace of texrt_alloc, freed with the executor.
struct Workspace {
  explicit Workspace(int64_t bytes) : data(texrt_alloc(bytes)) {}
  ~Workspace() { texrt_free(data); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  void* data;
};

/// The pointers a function takes after its inputs and outputs, into one region allocated with the
/// executor: a graph entry's workspace (`<op>_with_workspace`, ir/CallerWorkspace.h), or a graph
/// kernel's scratch arguments (ir/KernelScratch.h) when it runs alone.
struct TrailingArgs {
  int64_t bytes = 0;             // the region (0: none)
  std::vector<int64_t> offsets;  // one pointer per offset into it
};

class JitExecutor : public Executor {
 public:
  JitExecutor(std::shared_ptr<JitModule> jit, PackedFn packed, size_t num_inputs, TrailingArgs trailing)
      : jit_(std::move(jit)), packed_(packed), num_inputs_(num_inputs), offsets_(std::move(trailing.offsets)),
        region_(trailing.bytes > 0 ? std::make_unique<Workspace>(trailing.bytes) : nullptr) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    std::vector<void*> pointers;
    for (Tensor* t : args) pointers.push_back(t->data());
    for (int64_t offset : offsets_) pointers.push_back(static_cast<char*>(region_->data) + offset);
    return checked_then_timed(args, num_inputs_, [&] { packed_(pointers.data()); }, timed_rounds);
  }

 private:
  std::shared_ptr<JitModule> jit_;
  PackedFn packed_;
  size_t num_inputs_;
  std::vector<int64_t> offsets_;
  std::unique_ptr<Workspace> region_;
};

/// The executor of `entry` in `jit`: a graph's entry through `<op>_with_workspace` when the module
/// has it (one workspace for every call, as a caller that keeps one would run it), else `<op>`,
/// with one region for its scratch arguments when it has some (a graph kernel run alone).
std::unique_ptr<Executor> executor_of(std::shared_ptr<JitModule> jit, const LoweredFunc& entry, const char* what) {
  if (std::optional<LoweredFunc> with = caller_workspace_entry(entry)) {
    if (auto packed = reinterpret_cast<PackedFn>(jit->lookup(with->name + ".packed")))
      return std::make_unique<JitExecutor>(std::move(jit), packed, count_inputs(entry),
                                           TrailingArgs{entry.workspace_bytes, {0}});
  }
  auto packed = reinterpret_cast<PackedFn>(jit->lookup(entry.name + ".packed"));
  if (!packed) throw InterpError(std::string(what) + " has no op named '" + entry.name + "'");
  TrailingArgs scratch{kernel_scratch_bytes(entry), {}};
  for (int64_t offset : kernel_scratch_offsets(entry))
    if (offset >= 0) scratch.offsets.push_back(offset);
  return std::make_unique<JitExecutor>(std::move(jit), packed, count_inputs(entry), std::move(scratch));
}

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
  return executor_of(std::move(jit), entry, "the compiled module");
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
  return executor_of(std::move(jit), entry, "the shipped object");
}

}  // namespace texc
