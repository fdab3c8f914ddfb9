#include "backends/llvm/CpuTargetMachine.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <mutex>

namespace texc {

void initialize_llvm_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

namespace {

std::string host_feature_string() {
  std::string features;
  for (const auto& feature : llvm::sys::getHostCPUFeatures()) {
    if (!features.empty()) features += ",";
    features += (feature.second ? "+" : "-") + feature.first().str();
  }
  return features;
}

std::string joined(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "," + b;
}

}  // namespace

ResolvedCpuTarget resolve_cpu_target(const CpuTargetOptions& options) {
  ResolvedCpuTarget r;
  if (options.arch == "x86" || options.arch == "host") {
    llvm::Triple process(llvm::sys::getProcessTriple());
    r.triple = process.getArch() == llvm::Triple::x86_64 ? process.str() : "x86_64-unknown-linux-gnu";
    bool host_cpu = options.mcpu.empty() || options.mcpu == "native" || options.mcpu == "host";
    bool running_on_x86 = process.getArch() == llvm::Triple::x86_64;
    if (host_cpu && running_on_x86) {
      r.cpu = llvm::sys::getHostCPUName().str();
      r.features = joined(host_feature_string(), options.mattr);
    } else {
      r.cpu = host_cpu ? "x86-64" : options.mcpu;
      r.features = options.mattr;
    }
  } else if (options.arch == "arm" || options.arch == "aarch64") {
    r.triple = "aarch64-unknown-linux-gnu";
    r.cpu = options.mcpu.empty() ? "generic" : options.mcpu;
    r.features = joined("+neon", options.mattr);
  } else {
    throw TargetOptionError("unknown CPU target '" + options.arch + "' (expected 'x86' or 'arm')");
  }
  return r;
}

std::unique_ptr<llvm::TargetMachine> make_cpu_target_machine(const CpuTargetOptions& options) {
  initialize_llvm_targets();
  ResolvedCpuTarget resolved = resolve_cpu_target(options);
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(resolved.triple, error);
  if (!target) throw TargetOptionError("LLVM has no target for '" + resolved.triple + "': " + error);

  // Reject an unknown --mcpu here instead of letting LLVM warn and ignore it.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(target->createMCSubtargetInfo(resolved.triple, "", ""));
  if (subtarget && !subtarget->isCPUStringValid(resolved.cpu))
    throw TargetOptionError("unknown CPU '" + resolved.cpu + "' for target " + options.arch);

  llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive;
  switch (options.opt_level) {
    case 0: level = llvm::CodeGenOptLevel::None; break;
    case 1: level = llvm::CodeGenOptLevel::Less; break;
    case 2: level = llvm::CodeGenOptLevel::Default; break;
    default: break;
  }
  llvm::TargetOptions target_options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      resolved.triple, resolved.cpu, resolved.features, target_options, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm) throw TargetOptionError("cannot create a target machine for " + resolved.triple);
  return tm;
}

}  // namespace texc
