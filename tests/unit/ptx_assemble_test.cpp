// The PTX of every hand-written kernel in tests/unit/cuda_kernels, for every --arch texc accepts,
// assembled by the CUDA toolkit's ptxas ($TEXC_PTXAS, else /usr/local/cuda/bin/ptxas, else ptxas
// on PATH). Exit 77 (skipped) without ptxas. PTX for an arch this ptxas no longer knows (CUDA 13
// dropped sm_70 and sm_72) is assembled for sm_75 instead (PTX runs on later GPUs, so ptxas accepts
// an older `.target`), which checks it but not the older GPU's limits; any ptxas failure fails.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <tuple>

#include "backends/llvm/CudaBackend.h"
#include "tests/unit/cuda_test_kernels.h"

using namespace texc;

namespace {

std::string find_ptxas() {
  if (const char* env = std::getenv("TEXC_PTXAS"); env && *env) return env;
  if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0) return "/usr/local/cuda/bin/ptxas";
  if (std::system("command -v ptxas > /dev/null 2>&1") == 0) return "ptxas";
  return "";
}

/// Runs `command`, returns its exit status and output (stdout and stderr).
std::pair<int, std::string> run(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "cannot run " + command};
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

int main() {
  std::string ptxas = find_ptxas();
  if (ptxas.empty()) {
    std::printf("skipped: no ptxas (set TEXC_PTXAS or install the CUDA toolkit)\n");
    return 77;
  }
  const char* kernels[] = {"elementwise", "shared_tile_matmul", "shuffle_reduction", "shuffle_types", "big_shared",
                           "math_functions"};
  std::string dir = "/tmp/texc_ptx_assemble_" + std::to_string(getpid());
  std::system(("mkdir -p " + dir).c_str());
  int failures = 0, assembled = 0;
  for (const CudaArch& arch : cuda_archs()) {
    for (const char* name : kernels) {
      std::string path = dir + "/" + name + "." + arch.name + ".ptx";
      std::ofstream(path) << emit_ptx({cuda_test::kernel_file(name)}, {arch.name});
      std::string assemble_for = arch.name;
      auto [status, output] = run(ptxas + " -arch=" + assemble_for + " -v " + path + " -o /dev/null");
      if (status != 0 && output.find("is not defined for option 'gpu-name'") != std::string::npos) {
        assemble_for = "sm_75";
        std::tie(status, output) = run(ptxas + " -arch=" + assemble_for + " -v " + path + " -o /dev/null");
      }
      if (status != 0) {
        std::printf("FAIL %s for %s: ptxas exited %d:\n%s\n", name, arch.name, status, output.c_str());
        ++failures;
        continue;
      }
      ++assembled;
      std::printf("ok %s %s%s\n", name, arch.name,
                  assemble_for == arch.name ? "" : (" (this ptxas lacks it: assembled for " + assemble_for + ")").c_str());
    }
  }
  std::system(("rm -rf " + dir).c_str());
  std::printf("%d PTX files assembled, %d failures\n", assembled, failures);
  return failures == 0 && assembled > 0 ? 0 : 1;
}
