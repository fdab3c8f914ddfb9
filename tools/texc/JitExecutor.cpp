#include "tools/texc/JitExecutor.h"

#include <memory>

namespace texc {

OpExecutor make_jit_executor(const LoweredFunc& func, const CpuTargetOptions& target,
                             const std::map<std::string, void*>& extern_symbols) {
  std::shared_ptr<JitModule> jit = JitModule::create({func}, target, extern_symbols);
  std::string name = func.name;
  return [jit, name](std::vector<Tensor*>& args) {
    std::vector<void*> pointers;
    pointers.reserve(args.size());
    for (Tensor* t : args) pointers.push_back(t->data());
    jit->call(name, pointers);
  };
}

}  // namespace texc
