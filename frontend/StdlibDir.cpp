// default_stdlib_dir(): where `import nn.conv2d` looks when no stdlib_dir is given.
#include <cstdlib>
#include <filesystem>

#include "frontend/Frontend.h"

#ifndef TEXC_SOURCE_STDLIB_DIR
#error "frontend/CMakeLists.txt defines TEXC_SOURCE_STDLIB_DIR (the source tree's stdlib/)"
#endif

namespace texc {

std::string default_stdlib_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("TEXC_STDLIB"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const char* relative : {"../stdlib", "../../stdlib", "../share/texc/stdlib"}) {
      fs::path candidate = exe.parent_path() / relative;
      if (fs::is_regular_file(candidate / "nn" / "conv2d.tex", ec)) return fs::weakly_canonical(candidate, ec).string();
    }
  }
  return TEXC_SOURCE_STDLIB_DIR;
}

}  // namespace texc
