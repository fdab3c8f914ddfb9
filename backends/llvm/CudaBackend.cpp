// PTX and LLVM IR for the cuda target (CudaBackend.h): CodeGenNVPTX, the optimization pipeline with
// the NVPTX target machine, and LLVM's NVPTX assembly printer.
#include "backends/llvm/CudaBackend.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include "backends/llvm/CodeGenNVPTX.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "backends/llvm/LinkLibdevice.h"
#include "backends/llvm/LLVMBackend.h"
#include "backends/llvm/OptimizeModule.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

constexpr const char* kNvptxTriple = "nvptx64-nvidia-cuda";

std::unique_ptr<llvm::TargetMachine> make_nvptx_target_machine(const CudaTargetOptions& options) {
  if (!find_cuda_arch(options.arch))
    throw TargetOptionError("unknown CUDA architecture '" + options.arch + "'; valid ones are " + cuda_arch_names());
  initialize_llvm_targets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kNvptxTriple, error);
  TEXC_CHECK(target) << "this LLVM has no NVPTX target: " << error;
  llvm::CodeGenOptLevel level = options.opt_level <= 0   ? llvm::CodeGenOptLevel::None
                                : options.opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                : options.opt_level == 2 ? llvm::CodeGenOptLevel::Default
                                                         : llvm::CodeGenOptLevel::Aggressive;
  llvm::TargetOptions target_options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      kNvptxTriple, options.arch, "", target_options, std::nullopt, std::nullopt, level));
}

struct CompiledModule {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::TargetMachine> target_machine;
  std::unique_ptr<llvm::Module> module;
};

std::unique_ptr<CompiledModule> compile(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target) {
  auto compiled = std::make_unique<CompiledModule>();
  compiled->target_machine = make_nvptx_target_machine(target);
  compiled->module = codegen_nvptx(funcs, compiled->context, *compiled->target_machine);
  link_libdevice(*compiled->module);
  optimize_module(*compiled->module, *compiled->target_machine, target.opt_level);
  return compiled;
}

}  // namespace

std::string emit_cuda_llvm_ir(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target) {
  auto compiled = compile(funcs, target);
  std::string text;
  llvm::raw_string_ostream os(text);
  compiled->module->print(os, nullptr);
  return text;
}

std::string emit_ptx(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target) {
  auto compiled = compile(funcs, target);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager passes;  // the codegen pipeline is still legacy-PM only in LLVM 19
  bool unsupported = compiled->target_machine->addPassesToEmitFile(passes, os, nullptr,
                                                                   llvm::CodeGenFileType::AssemblyFile);
  TEXC_CHECK(!unsupported) << "the NVPTX target cannot emit PTX";
  passes.run(*compiled->module);
  return std::string(text.str());
}

}  // namespace texc
