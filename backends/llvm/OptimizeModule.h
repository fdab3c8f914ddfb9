// OptimizeModule: the new-pass-manager pipeline (O0..O3, with the target's TTI, loop and SLP
// vectorization) run over a module built by codegen_cpu (CodeGenCPU.h).
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace texc {

void optimize_module(llvm::Module& module, llvm::TargetMachine& target_machine, int opt_level);

}  // namespace texc
