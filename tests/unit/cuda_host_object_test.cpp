// texc's cuda host side (backends/llvm/CudaBackend.h write_cuda_host_object, emit_cuda_host_header)
// on the hand-written kernels: the object and header compile and link with a C program
// (cuda_host_driver.c) and libtexrt.a, with no CUDA library at link time; run on a machine without
// a CUDA driver, every host function returns TEXRT_CUDA_NO_DEVICE with the message "no CUDA device:
// ..." and the program exits 2. Exit 77 (skipped) without a C compiler, or where a CUDA driver is
// installed (the no-device path cannot be checked there).
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "backends/llvm/CudaBackend.h"
#include "tests/unit/cuda_test_kernels.h"

using namespace texc;

namespace {

std::pair<int, std::string> run(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "cannot run " + command};
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

int fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main() {
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(driver);
    std::printf("skipped: a CUDA driver is installed; this test checks the path without one\n");
    return 77;
  }
  const char* cc = std::getenv("CC");
  std::string compiler = cc && *cc ? cc : "cc";
  if (run("command -v " + compiler).first != 0) {
    std::printf("skipped: no C compiler (%s)\n", compiler.c_str());
    return 77;
  }
  std::string dir = "/tmp/texc_cuda_host_" + std::to_string(getpid());
  std::system(("mkdir -p " + dir).c_str());
  std::vector<LoweredFunc> funcs;
  for (const char* name : {"elementwise", "shared_tile_matmul", "shuffle_reduction"})
    funcs.push_back(cuda_test::kernel_file(name));
  write_cuda_host_object(funcs, {}, dir + "/kernels.o");
  std::ofstream(dir + "/kernels.h") << emit_cuda_host_header(funcs);

  int failures = 0;
  // Only the runtime's launcher is undefined: nothing refers to CUDA itself.
  auto [nm_status, undefined] = run("nm -u --format=just-symbols " + dir + "/kernels.o");
  if (nm_status != 0 || undefined != "texrt_cuda_launch\n")
    failures += fail("the undefined symbols of kernels.o are not just texrt_cuda_launch:\n" + undefined);
  std::string build = compiler + " -std=c99 -Wall -Werror -I" + dir + " " + TEXC_CUDA_DRIVER_SOURCE + " " + dir +
                      "/kernels.o " + TEXC_TEXRT_LIBRARY + " -lstdc++ -lpthread -ldl " + TEXC_DRIVER_LINK_FLAGS + " -o " + dir +
                      "/driver";
  auto [build_status, build_output] = run(build);
  if (build_status != 0) {
    failures += fail("the C driver does not build:\n" + build + "\n" + build_output);
  } else {
    auto [status, output] = run(dir + "/driver");
    std::printf("driver exited %d: %s", status, output.c_str());
    if (status != 2 || output.rfind("no CUDA device: libcuda.so.1 cannot be loaded", 0) != 0)
      failures += fail("expected exit 2 and 'no CUDA device: libcuda.so.1 cannot be loaded'");
  }
  std::system(("rm -rf " + dir).c_str());
  return failures == 0 ? 0 : 1;
}
