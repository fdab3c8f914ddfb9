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
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
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

/// The first line of an LLVM fatal error without node addresses: "Cannot select: v8f32 = vselect"
/// rather than the selection DAG that instruction selection appends to it.
std::string short_reason(const char* reason) {
  std::string line(reason, std::strcspn(reason, "\n"));
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line.compare(i, 2, "0x") == 0) {  // "0x55d00d5f8d90: " or "0x55d00d5f8d90, "
      size_t end = i + 2;
      while (end < line.size() && std::isxdigit(static_cast<unsigned char>(line[end]))) ++end;
      if (end < line.size() && line[end] == ':') ++end;
      while (end < line.size() && (line[end] == ',' || line[end] == ' ')) ++end;
      i = end;
      continue;
    }
    out += line[i++];
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
  return out;
}

/// LLVM's fatal errors (report_fatal_error) end the process; this handler makes that a message
/// instead of "LLVM ERROR", a selection DAG and an abort: a user error (exit 1) when the module
/// calls `lower llvm` intrinsics (their instruction is missing) or --mcpu/--mattr chose the target,
/// else an internal error. Only the first line of LLVM's reason is printed, without node addresses.
void on_llvm_fatal_error(void*, const char* reason, bool) {
  std::string choice, arch, intrinsics;
  {
    std::lock_guard<std::mutex> lock(g_user_choice_mutex);
    choice = g_user_choice;
    arch = g_target_arch;
    for (const std::string& name : g_target_intrinsics) intrinsics += (intrinsics.empty() ? "'" : ", '") + name + "'";
  }
  std::string what = short_reason(reason);
  std::string target = choice.empty() ? "target " + arch + " (default CPU)" : choice;
  // Code generation failed in a module that calls `lower llvm` intrinsics (tensorize) whose
  // declaration states no `requires` features: the chosen or default CPU most likely lacks their
  // instruction ("Cannot select", or "Do not know how to split" a vector the CPU has no register for).
  if (!intrinsics.empty()) {
    std::fprintf(stderr,
                 "texc: error: LLVM cannot generate code for %s: the CPU lacks the instruction of the tensorized "
                 "LLVM intrinsic %s (LLVM: %s); choose a CPU that has it with --mcpu or --mattr, or a schedule "
                 "without it, and state the features it needs with `requires` in its declaration\n",
                 target.c_str(), intrinsics.c_str(), what.c_str());
    std::fflush(stderr);
    _exit(1);
  }
  if (!choice.empty()) {
    std::fprintf(stderr,
                 "texc: error: LLVM cannot generate code for %s: %s (LLVM 19 cannot lower this combination of CPU "
                 "features; choose a CPU with --mcpu alone, or add the features it implies)\n",
                 choice.c_str(), what.c_str());
    std::fflush(stderr);
    _exit(1);
  }
  std::fprintf(stderr, "texc: internal error: LLVM failed: %s\n(this is a bug in texc, not in your program)\n",
               what.c_str());
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
    return {"+64bit,+64bit-mode,-soft-float,+sse,+sse2",
            "x86-64 code needs a 64-bit CPU in 64-bit mode with hardware floating point in SSE registers (the "
            "x86-64 ABI passes floats in them, to libm's functions too)"};
  return {"", ""};
}

std::string joined(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "," + b;
}

/// Does the comma-separated list `list` hold `entry` ("-evex512")?
bool list_has(const std::string& list, const std::string& entry) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = std::min(list.find(',', start), list.size());
    if (list.compare(start, comma - start, entry) == 0) return true;
    start = comma + 1;
  }
  return false;
}

/// The triple, CPU and feature string of `options` before any check.
ResolvedCpuTarget unchecked_resolution(const CpuTargetOptions& options) {
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

const llvm::Target* llvm_target(const ResolvedCpuTarget& r) {
  initialize_llvm_targets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(r.triple, error);
  if (!target) throw TargetOptionError("LLVM has no target for '" + r.triple + "': " + error);
  return target;
}

std::unique_ptr<llvm::MCSubtargetInfo> subtarget_of(const ResolvedCpuTarget& r) {
  return std::unique_ptr<llvm::MCSubtargetInfo>(llvm_target(r)->createMCSubtargetInfo(r.triple, r.cpu, r.features));
}

/// A subtarget of the triple that knows every feature name (no CPU, no features).
std::unique_ptr<llvm::MCSubtargetInfo> any_subtarget(const ResolvedCpuTarget& r) {
  return std::unique_ptr<llvm::MCSubtargetInfo>(llvm_target(r)->createMCSubtargetInfo(r.triple, "", ""));
}

bool knows_feature(const llvm::MCSubtargetInfo& subtarget, const std::string& name) {
  for (const llvm::SubtargetFeatureKV& f : subtarget.getAllProcessorFeatures())
    if (name == f.Key) return true;
  return false;
}

/// "--mcpu i386 --mattr -sse2", or "" for the defaults.
std::string choice_of(const CpuTargetOptions& options) {
  std::string choice;
  if (!options.mcpu.empty()) choice = "--mcpu " + options.mcpu;
  if (!options.mattr.empty()) choice += (choice.empty() ? "--mattr " : " --mattr ") + options.mattr;
  return choice;
}

}  // namespace

ResolvedCpuTarget resolve_cpu_target(const CpuTargetOptions& options) {
  ResolvedCpuTarget r = unchecked_resolution(options);
  // Reject an unknown --mcpu, an unknown --mattr feature, or a choice the generated code cannot
  // run with here, before LLVM warns and ignores it or fails inside code generation.
  std::unique_ptr<llvm::MCSubtargetInfo> any = any_subtarget(r);
  if (!any->isCPUStringValid(r.cpu))
    throw TargetOptionError("unknown CPU '" + r.cpu + "' for target " + options.arch + " (did you mean " +
                            closest_names(r.cpu, any->getAllProcessorDescriptions()) + "?)");
  check_feature_list(options.mattr, *any, options.arch);
  std::unique_ptr<llvm::MCSubtargetInfo> chosen = subtarget_of(r);
  RequiredFeatures required = required_features(options.arch);
  if (*required.features && !chosen->checkFeatures(required.features))
    throw TargetOptionError("target " + options.arch + " cannot use " + choice_of(options) + ": " + required.why +
                            " (" + required.features + ")");
  // AVX-512's register width. LLVM 19 uses 512-bit registers only with the feature evex512, which
  // the AVX-512 CPUs (skylake-avx512, znver4, x86-64-v4, knl, ...) have but which AVX-512 features
  // added to another CPU (--mcpu x86-64-v3 --mattr +avx512f) do not bring (clang adds it; LLVM only
  // for the CPU x86-64). AVX-512 limited to 256 bits works only with avx512vl: without it LLVM cannot
  // select masked 256-bit operations ("Cannot select: v8f32 = vselect"). Every AVX-512 CPU before
  // AVX10 has 512-bit registers, so AVX-512 gets +evex512 unless --mattr says -evex512, and then
  // needs avx512vl.
  // (LLVM's MCSubtargetInfo reports evex512 with any AVX-512 feature: the code generator's subtarget
  // is what lacks it, so the feature string decides.)
  if ((options.arch == "x86" || options.arch == "host") && chosen->checkFeatures("+avx512f")) {
    if (!list_has(options.mattr, "-evex512")) {
      if (!list_has(r.features, "+evex512")) r.features = joined(r.features, "+evex512");
    } else if (!chosen->checkFeatures("+avx512vl")) {
      throw TargetOptionError("target " + options.arch + " cannot use " + choice_of(options) +
                              ": AVX-512 without 512-bit registers (-evex512) needs avx512vl (LLVM 19 cannot "
                              "generate masked 256-bit operations without it); add +avx512vl or leave out -evex512");
    }
  }
  return r;
}

std::unique_ptr<llvm::TargetMachine> make_cpu_target_machine(const CpuTargetOptions& options) {
  ResolvedCpuTarget resolved = resolve_cpu_target(options);
  const llvm::Target* target = llvm_target(resolved);
  std::string choice = choice_of(options);
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

std::optional<std::string> unknown_cpu_feature(const std::string& arch, const std::string& name) {
  CpuTargetOptions options;
  options.arch = arch;
  ResolvedCpuTarget r = unchecked_resolution(options);
  std::unique_ptr<llvm::MCSubtargetInfo> any = any_subtarget(r);
  if (knows_feature(*any, name)) return std::nullopt;
  return closest_names(name, any->getAllProcessorFeatures());
}

std::vector<std::string> missing_cpu_features(const CpuTargetOptions& options, const std::vector<std::string>& features) {
  ResolvedCpuTarget r = resolve_cpu_target(options);
  std::unique_ptr<llvm::MCSubtargetInfo> any = any_subtarget(r);
  std::unique_ptr<llvm::MCSubtargetInfo> chosen = subtarget_of(r);
  std::vector<std::string> missing;
  for (const std::string& f : features)
    if (!knows_feature(*any, f) || !chosen->checkFeatures("+" + f)) missing.push_back(f);
  return missing;
}

std::vector<std::string> features_missing_on_host(const CpuTargetOptions& options,
                                                  const std::map<std::string, bool>& host) {
  ResolvedCpuTarget r = resolve_cpu_target(options);
  std::unique_ptr<llvm::MCSubtargetInfo> any = any_subtarget(r);
  std::unique_ptr<llvm::MCSubtargetInfo> chosen = subtarget_of(r);
  std::vector<std::string> missing;  // std::map: sorted by name
  for (const auto& [name, present] : host)
    if (!present && knows_feature(*any, name) && chosen->checkFeatures("+" + name)) missing.push_back(name);
  return missing;
}

std::string host_cannot_run(const CpuTargetOptions& options) {
  // Code runs on this CPU when the target is the host's architecture (x86 in process, arm natively
  // on an aarch64 host); elsewhere arm runs under qemu-aarch64, which emulates every feature.
  llvm::Triple::ArchType host_arch = llvm::Triple(llvm::sys::getProcessTriple()).getArch();
  bool x86 = options.arch == "x86" || (options.arch == "host" && host_arch == llvm::Triple::x86_64);
  bool arm = options.arch == "arm" || options.arch == "aarch64" || (options.arch == "host" && host_arch == llvm::Triple::aarch64);
  if (!(x86 && host_arch == llvm::Triple::x86_64) && !(arm && host_arch == llvm::Triple::aarch64)) return "";
  std::map<std::string, bool> host;
  for (const auto& feature : llvm::sys::getHostCPUFeatures()) host[feature.first().str()] = feature.second;
  std::vector<std::string> missing = features_missing_on_host(options, host);
  if (missing.empty()) return "";
  std::string list;
  for (const std::string& f : missing) list += (list.empty() ? "" : ", ") + f;
  return "cannot run code for target " + options.arch + " " + choice_of(options) + " on this host (" +
         llvm::sys::getHostCPUName().str() + "): the host CPU lacks " + list +
         "; compile it without `run`, or run it for the host's CPU (no --mcpu, no --mattr adding these)";
}

}  // namespace texc
