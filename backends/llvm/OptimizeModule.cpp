#include "backends/llvm/OptimizeModule.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>

namespace texc {

void optimize_module(llvm::Module& module, llvm::TargetMachine& target_machine, int opt_level) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  tuning.LoopUnrolling = opt_level >= 1;
  tuning.LoopInterleaving = opt_level >= 2;

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Constructed with the target machine, the builder registers its TargetIRAnalysis (the TTI).
  llvm::PassBuilder builder(&target_machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);

  llvm::OptimizationLevel level = llvm::OptimizationLevel::O3;
  switch (opt_level) {
    case 0: level = llvm::OptimizationLevel::O0; break;
    case 1: level = llvm::OptimizationLevel::O1; break;
    case 2: level = llvm::OptimizationLevel::O2; break;
    default: break;
  }
  llvm::ModulePassManager passes = level == llvm::OptimizationLevel::O0 ? builder.buildO0DefaultPipeline(level)
                                                                       : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
}

}  // namespace texc
