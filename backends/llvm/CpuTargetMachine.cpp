#include "backends/llvm/CpuTargetMachine.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

namespace texc {

namespace {

// What the user chose for the target machine being built ("" when nothing: the defaults), so that
// an LLVM failure can be blamed on the choice or reported as texc's own bug.
std::mutex g_user_choice_mutex;
std::string g_user_choice;
std::string g_target_arch;  // "x86" or "arm": the target machine being built
std::set<std::string> g_target_intrinsics;  // `lower llvm` intrinsics code generation has called

/// LLVM's fatal errors (report_fatal_error) end the process; this handler makes that a message
/// instead of "LLVM ERROR" and an abort: a user error (exit 1) when --mcpu/--mattr chose the
/// target, else an internal error.
void on_llvm_fatal_error(void*, const char* reason, bool) {
  std::string choice, arch, intrinsics;
  {
    std::lock_guard<std::mutex> lock(g_user_choice_mutex);
    choice = g_user_choice;
    arch = g_target_arch;
    for (const std::string& name : g_target_intrinsics) intrinsics += (intrinsics.empty() ? "'" : ", '") + name + "'";
  }
  // Instruction selection failed in a module that calls `lower llvm` intrinsics (tensorize): the
  // chosen or default CPU lacks their instruction.
  if (std::strncmp(reason, "Cannot select", 13) == 0 && !intrinsics.empty()) {
    std::fprintf(stderr,
                 "texc: error: LLVM cannot generate code for %s: the CPU lacks the instruction of the tensorized "
                 "LLVM intrinsic %s (choose a CPU that has it with --mcpu or --mattr, or a schedule without it)\n",
                 choice.empty() ? ("target " + arch + " (default CPU)").c_str() : choice.c_str(), intrinsics.c_str());
    std::fflush(stderr);
    _exit(1);
  }
  if (!choice.empty()) {
    std::fprintf(stderr, "texc: error: LLVM cannot generate code for %s: %s\n", choice.c_str(), reason);
    std::fflush(stderr);
    _exit(1);
  }
  std::fprintf(stderr, "texc: internal error: LLVM failed: %s\n(this is a bug in texc, not in your program)\n", reason);
  std::fflush(stderr);
  std::abort();
}

}  // namespace

void note_target_intrinsic_call(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_user_choice_mutex);
  g_target_intrinsics.insert(name);
}

void initialize_llvm_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler(on_llvm_fatal_error, nullptr);
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

/// The (at most 3) names in `names` closest to `name`, as "'a', 'b' or 'c'".
template <typename KV>
std::string closest_names(const std::string& name, llvm::ArrayRef<KV> names) {
  std::vector<std::pair<unsigned, std::string>> scored;
  for (const KV& kv : names) scored.emplace_back(llvm::StringRef(kv.Key).edit_distance(name), kv.Key);
  std::sort(scored.begin(), scored.end());
  std::string out;
  size_t n = std::min<size_t>(3, scored.size());
  for (size_t i = 0; i < n; ++i) out += (i == 0 ? "'" : i + 1 == n ? "' or '" : "', '") + scored[i].second;
  return n ? out + "'" : out;
}

/// Throws TargetOptionError unless every entry of `mattr` is +NAME or -NAME with a NAME the target
/// knows.
void check_feature_list(const std::string& mattr, const llvm::MCSubtargetInfo& subtarget, const std::string& arch) {
  size_t start = 0;
  while (start <= mattr.size() && !mattr.empty()) {
    size_t comma = std::min(mattr.find(',', start), mattr.size());
    std::string entry = mattr.substr(start, comma - start);
    start = comma + 1;
    if (entry.size() < 2 || (entry[0] != '+' && entry[0] != '-'))
      throw TargetOptionError("--mattr entries are +FEATURE (enable) or -FEATURE (disable), not '" + entry + "'");
    std::string name = entry.substr(1);
    bool known = false;
    for (const llvm::SubtargetFeatureKV& f : subtarget.getAllProcessorFeatures()) known = known || name == f.Key;
    if (!known)
      throw TargetOptionError("unknown feature '" + name + "' in --mattr for target " + arch + " (did you mean " +
                              closest_names(name, subtarget.getAllProcessorFeatures()) + "?)");
  }
}

/// The features the code texc generates (and the ABI of the ops it calls) cannot do without, as an
/// LLVM feature string, and why.
struct RequiredFeatures {
  const char* features;
  const char* why;
};
RequiredFeatures required_features(const std::string& arch) {
  if (arch == "x86" || arch == "host")
    return {"+64bit,+64bit-mode,-soft-float",
            "x86-64 code needs a 64-bit CPU in 64-bit mode with hardware floating point"};
  return {"", ""};
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

  // Reject an unknown --mcpu, an unknown --mattr feature, or a choice the generated code cannot
  // run with here, before LLVM warns and ignores it or fails inside code generation.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(target->createMCSubtargetInfo(resolved.triple, "", ""));
  if (subtarget && !subtarget->isCPUStringValid(resolved.cpu))
    throw TargetOptionError("unknown CPU '" + resolved.cpu + "' for target " + options.arch + " (did you mean " +
                            closest_names(resolved.cpu, subtarget->getAllProcessorDescriptions()) + "?)");
  if (subtarget) check_feature_list(options.mattr, *subtarget, options.arch);
  RequiredFeatures required = required_features(options.arch);
  std::unique_ptr<llvm::MCSubtargetInfo> chosen(
      target->createMCSubtargetInfo(resolved.triple, resolved.cpu, resolved.features));
  std::string choice;  // "--mcpu i386 --mattr -sse2", or "" for the defaults
  if (!options.mcpu.empty()) choice = "--mcpu " + options.mcpu;
  if (!options.mattr.empty()) choice += (choice.empty() ? "--mattr " : " --mattr ") + options.mattr;
  if (chosen && *required.features && !chosen->checkFeatures(required.features))
    throw TargetOptionError("target " + options.arch + " cannot use " + choice + ": " + required.why + " (" +
                            required.features + ")");
  {
    std::lock_guard<std::mutex> lock(g_user_choice_mutex);
    g_user_choice = choice.empty() ? "" : "target " + options.arch + " " + choice;
    g_target_arch = options.arch;
  }

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
