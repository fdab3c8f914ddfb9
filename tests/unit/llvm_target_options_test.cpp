// Unit tests of backends/llvm/CpuTargetMachine: --mcpu/--mattr are checked against LLVM's tables
// before LLVM sees them, and an LLVM fatal error becomes texc's message instead of an abort inside
// LLVM (a user error after a user's choice of CPU or features, else an internal error).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <fcntl.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Target/TargetMachine.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <fstream>
#include <sstream>

#include "backends/llvm/CpuTargetMachine.h"

using namespace texc;

namespace {

std::string message_of(const CpuTargetOptions& options) {
  try {
    make_cpu_target_machine(options);
  } catch (const TargetOptionError& e) {
    return e.what();
  }
  return "";
}

/// Makes a target machine for `options` in a forked child, then has LLVM report the fatal error
/// `reason`; returns the child's wait status and what it printed on stderr.
std::pair<int, std::string> fatal_error_with(const CpuTargetOptions& options, const char* reason) {
  std::string path = "/tmp/texc_llvm_fatal_" + std::to_string(getpid()) + ".txt";
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    signal(SIGABRT, SIG_DFL);  // not doctest's crash handler: the parent looks at how the child ended
    make_cpu_target_machine(options);
    llvm::report_fatal_error(reason, false);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path.c_str());
  return {status, text.str()};
}

/// As fatal_error_with, with a reason no check of texc's recognises.
std::pair<int, std::string> fatal_error_after(const CpuTargetOptions& options) {
  return fatal_error_with(options, "something LLVM cannot do");
}

}  // namespace

TEST_CASE("--mcpu and --mattr are checked against the target's tables") {
  CHECK(message_of({"x86", "x86-64-v2", "+avx2,-avx512f", 3}) == "");
  CHECK(message_of({"x86", "skylake-avx513", "", 3}).find("unknown CPU 'skylake-avx513' for target x86 (did you mean "
                                                          "'skylake-avx512'") == 0);
  CHECK(message_of({"x86", "", "+nonsense", 3}).find("unknown feature 'nonsense' in --mattr for target x86") == 0);
  CHECK(message_of({"x86", "", "avx2", 3}) ==
        "--mattr entries are +FEATURE (enable) or -FEATURE (disable), not 'avx2'");
  CHECK(message_of({"x86", "i386", "", 3}).find("target x86 cannot use --mcpu i386: x86-64 code needs") == 0);
  CHECK(message_of({"x86", "", "-64bit-mode", 3}).find("target x86 cannot use --mattr -64bit-mode") == 0);
  CHECK(message_of({"x86", "", "+soft-float", 3}).find("target x86 cannot use --mattr +soft-float") == 0);
  CHECK(message_of({"arm", "cortex-a53", "+crc", 3}) == "");
  CHECK(message_of({"arm", "", "-64bit", 3}).find("unknown feature '64bit' in --mattr for target arm") == 0);
}

TEST_CASE("an LLVM fatal error after a chosen CPU is a message and exit 1") {
  auto [status, text] = fatal_error_after({"x86", "x86-64-v2", "", 3});
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(text.find("texc: error: LLVM cannot generate code for target x86 --mcpu x86-64-v2: something LLVM cannot do (") == 0);
}


TEST_CASE("an instruction selection failure prints its first line without the DAG or node addresses") {
  auto [status, text] = fatal_error_with({"x86", "x86-64-v3", "+avx2", 3},
                                         "Cannot select: 0x5650fb784630: v8f32 = vselect 0x5650fb70be50, 0x5650fb784550, "
                                         "0x5650fb776c70\n  0x5650fb70be50: v8i1 = X86ISD::CMPM 0x5650fb7340d0\n    0x5650fb7340d0: "
                                         "v8f32,ch = X86ISD::VBROADCAST_LOAD\nIn function: f\n");
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(text.find("texc: error: LLVM cannot generate code for target x86 --mcpu x86-64-v3 --mattr +avx2: Cannot select: "
                  "v8f32 = vselect (") == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  CHECK(text.find("0x") == std::string::npos);
}

TEST_CASE("x86 without SSE2, and AVX-512 limited to 256 bits without avx512vl, are refused up front") {
  CHECK(message_of({"x86", "", "-sse,-sse2", 3}).find("target x86 cannot use --mattr -sse,-sse2: x86-64 code needs") == 0);
  CHECK(message_of({"x86", "x86-64-v3", "-sse2", 3}).find("target x86 cannot use --mcpu x86-64-v3 --mattr -sse2") == 0);
  CHECK(message_of({"x86", "x86-64-v4", "-evex512,-avx512vl", 3})
            .find("target x86 cannot use --mcpu x86-64-v4 --mattr -evex512,-avx512vl: AVX-512 without 512-bit registers "
                  "(-evex512) needs avx512vl") == 0);
  CHECK(message_of({"x86", "x86-64-v4", "-evex512", 3}) == "");
}

TEST_CASE("AVX-512 added to a CPU without it gets 512-bit registers") {
  CHECK(resolve_cpu_target({"x86", "x86-64-v3", "+avx512f", 3}).features == "+avx512f,+evex512");
  CHECK(resolve_cpu_target({"x86", "haswell", "+avx512bw", 3}).features == "+avx512bw,+evex512");
  CHECK(resolve_cpu_target({"x86", "x86-64-v3", "", 3}).features == "");
  CHECK(resolve_cpu_target({"x86", "x86-64-v4", "-evex512", 3}).features == "-evex512");
}

TEST_CASE("the features an intrinsic requires, against the target CPU") {
  CHECK(missing_cpu_features({"x86", "x86-64-v3", "", 3}, {"avx512vnni", "evex512", "avx2"}) ==
        std::vector<std::string>{"avx512vnni", "evex512"});
  CHECK(missing_cpu_features({"x86", "x86-64-v3", "+avx512vnni", 3}, {"avx512vnni", "evex512"}).empty());
  CHECK(missing_cpu_features({"x86", "icelake-server", "-avx512vnni", 3}, {"avx512vnni", "evex512"}) ==
        std::vector<std::string>{"avx512vnni"});
  CHECK(missing_cpu_features({"arm", "", "", 3}, {"dotprod"}) == std::vector<std::string>{"dotprod"});
  CHECK(missing_cpu_features({"arm", "", "+dotprod", 3}, {"dotprod"}).empty());
  CHECK(missing_cpu_features({"arm", "cortex-a76", "", 3}, {"dotprod"}).empty());
  CHECK(!unknown_cpu_feature("x86", "avx512vnni"));
  CHECK(unknown_cpu_feature("x86", "avx512vnnni").value_or("").find("'avx512vnni'") == 0);
  CHECK(unknown_cpu_feature("arm", "avx512vnni").has_value());
}

TEST_CASE("a CPU with features the host lacks cannot run here") {
  std::map<std::string, bool> zen3 = {{"avx2", true}, {"fma", true}, {"avx512f", false}, {"avx512bw", false},
                                      {"avx512vl", false}, {"avx512vnni", false}, {"amx-tile", false}};
  CHECK(features_missing_on_host({"x86", "x86-64-v3", "", 3}, zen3).empty());
  CHECK(features_missing_on_host({"x86", "skylake-avx512", "", 3}, zen3) ==
        std::vector<std::string>{"avx512bw", "avx512f", "avx512vl"});
  CHECK(features_missing_on_host({"x86", "x86-64-v3", "+avx512vnni", 3}, zen3) ==
        std::vector<std::string>{"avx512f", "avx512vnni"});
  CHECK(host_cannot_run({"x86", "", "", 3}) == "");  // the host's own CPU
  CHECK(host_cannot_run({"arm", "cortex-a76", "", 3}) == "");  // runs under an emulator
  std::map<std::string, bool> cortex_a53 = {{"neon", true}, {"crc", true}, {"dotprod", false}, {"sve", false}};
  CHECK(features_missing_on_host({"arm", "", "", 3}, cortex_a53).empty());
  CHECK(features_missing_on_host({"arm", "", "+dotprod", 3}, cortex_a53) == std::vector<std::string>{"dotprod"});
}

TEST_CASE("an LLVM fatal error with the default target is an internal error") {
  auto [status, text] = fatal_error_after({"x86", "", "", 3});
  CHECK(WIFSIGNALED(status));
  CHECK(text.find("texc: internal error: LLVM failed: something LLVM cannot do") == 0);
}
