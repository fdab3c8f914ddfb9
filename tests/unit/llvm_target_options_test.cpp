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

#include <csignal>
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

/// Makes a target machine for `options` in a forked child, then has LLVM report a fatal error;
/// returns the child's wait status and what it printed on stderr.
std::pair<int, std::string> fatal_error_after(const CpuTargetOptions& options) {
  std::string path = "/tmp/texc_llvm_fatal_" + std::to_string(getpid()) + ".txt";
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    signal(SIGABRT, SIG_DFL);  // not doctest's crash handler: the parent looks at how the child ended
    make_cpu_target_machine(options);
    llvm::report_fatal_error("something LLVM cannot do", false);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path.c_str());
  return {status, text.str()};
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
  CHECK(text == "texc: error: LLVM cannot generate code for target x86 --mcpu x86-64-v2: something LLVM cannot do\n");
}

TEST_CASE("an LLVM fatal error with the default target is an internal error") {
  auto [status, text] = fatal_error_after({"x86", "", "", 3});
  CHECK(WIFSIGNALED(status));
  CHECK(text.find("texc: internal error: LLVM failed: something LLVM cannot do") == 0);
}
