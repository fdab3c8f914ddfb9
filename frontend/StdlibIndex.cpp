#include "frontend/StdlibIndex.h"

#include <filesystem>
#include <fstream>
#include <regex>

namespace texc {

std::map<std::string, std::string> stdlib_op_modules(const std::string& stdlib_dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> modules;
  static const std::regex op_line(R"(^\s*op\s+([A-Za-z_][A-Za-z0-9_]*)\s*\()");
  std::error_code ec;
  fs::recursive_directory_iterator it(stdlib_dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    if (path.extension() != ".tex" || !it->is_regular_file(ec)) continue;
    std::string module = fs::relative(path, stdlib_dir, ec).replace_extension().generic_string();
    for (char& ch : module)
      if (ch == '/') ch = '.';
    std::ifstream in(path);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, op_line)) modules.emplace(m[1].str(), module);
  }
  return modules;
}

}  // namespace texc
