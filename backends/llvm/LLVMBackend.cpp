// Emission of LLVM IR, assembly and object files for the CPU targets (the file-producing half of
// LLVMBackend.h; the JIT is in JitModule.cpp, the C header in CHeader.cpp).
#include "backends/llvm/LLVMBackend.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/llvm/CodeGenCPU.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "backends/llvm/ObjectFile.h"
#include "backends/llvm/OptimizeModule.h"

namespace texc {

namespace {

struct CompiledModule {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::TargetMachine> target_machine;
  std::unique_ptr<llvm::Module> module;
};

std::unique_ptr<CompiledModule> compile(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                                        bool optimize, CpuCompileTimes* times = nullptr,
                                        const CodeGenOptions& codegen_options = {}) {
  PhaseClock codegen;
  auto compiled = std::make_unique<CompiledModule>();
  compiled->target_machine = make_cpu_target_machine(target);
  compiled->module = codegen_cpu(funcs, compiled->context, *compiled->target_machine, codegen_options);
  if (times) times->codegen = codegen.elapsed();
  PhaseClock optimization;
  if (optimize) optimize_module(*compiled->module, *compiled->target_machine, target.opt_level);
  if (times) times->optimize = optimization.elapsed();
  return compiled;
}

std::string module_text(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

void emit_machine_code(CompiledModule& compiled, llvm::raw_pwrite_stream& os, llvm::CodeGenFileType kind) {
  llvm::legacy::PassManager passes;  // the codegen pipeline is still legacy-PM only in LLVM 19
  bool unsupported = compiled.target_machine->addPassesToEmitFile(passes, os, nullptr, kind);
  if (unsupported) throw std::runtime_error("the LLVM target cannot emit this file type");
  passes.run(*compiled.module);
}

void write_machine_code(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                        const std::string& path, llvm::CodeGenFileType kind, CpuCompileTimes* times = nullptr) {
  auto compiled = compile(funcs, target, true, times);
  PhaseClock emission;
  write_module_file(*compiled->module, *compiled->target_machine, path, kind);
  if (times) times->emit = emission.elapsed();
}

}  // namespace

std::string emit_llvm_ir(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target) {
  return module_text(*compile(funcs, target, true)->module);
}

std::string emit_llvm_ir_unoptimized(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target) {
  return module_text(*compile(funcs, target, false)->module);
}

void check_cpu_target(const CpuTargetOptions& target) { make_cpu_target_machine(target); }

void write_object(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target, const std::string& path,
                  CpuCompileTimes* times) {
  write_machine_code(funcs, target, path, llvm::CodeGenFileType::ObjectFile, times);
}

void write_assembly(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target, const std::string& path) {
  write_machine_code(funcs, target, path, llvm::CodeGenFileType::AssemblyFile);
}

std::string emit_assembly(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target) {
  auto compiled = compile(funcs, target, true);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  emit_machine_code(*compiled, os, llvm::CodeGenFileType::AssemblyFile);
  return std::string(text.str());
}

std::string emit_packed_object(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target) {
  CodeGenOptions options;
  options.packed_wrappers = true;
  auto compiled = compile(funcs, target, true, nullptr, options);
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  emit_machine_code(*compiled, os, llvm::CodeGenFileType::ObjectFile);
  return std::string(bytes.str());
}

}  // namespace texc
