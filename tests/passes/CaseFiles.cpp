#include "tests/passes/CaseFiles.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace texc::pass_tests {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string split_cases(const std::string& text, std::vector<Case>& cases) {
  std::istringstream in(text);
  std::string line;
  Section* current = nullptr;
  for (int n = 1; std::getline(in, line); ++n) {
    std::string t = trim(line);
    if (t.rfind("// pass:", 0) == 0) {
      cases.push_back(Case{trim(t.substr(8)), n, {}, {}});
      current = nullptr;
      continue;
    }
    if (t == "// before" || t == "// expected") {
      if (cases.empty()) return "line " + std::to_string(n) + ": '" + t + "' before any '// pass:' line";
      current = t == "// before" ? &cases.back().before : &cases.back().expected;
      current->first_line = n + 1;
      continue;
    }
    if (current) current->text += (t.rfind('#', 0) == 0 ? "" : line) + "\n";
  }
  for (const Case& c : cases) {
    if (c.before.first_line == 0 || c.expected.first_line == 0)
      return "line " + std::to_string(c.line) + ": a case needs a '// before' and an '// expected' section";
  }
  return "";
}

int run_case_files(int argc, char** argv, const std::string& program,
                   const std::function<bool(const Case&, const std::string& path)>& run_case) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      std::vector<std::string> in_dir;
      for (const auto& entry : std::filesystem::directory_iterator(p))
        if (entry.path().extension() == ".txt") in_dir.push_back(entry.path().string());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(p.string());
    }
  }
  if (files.empty()) {
    std::cerr << "usage: " << program << " FILE_OR_DIR...\n";
    return 2;
  }
  int passed = 0, failed = 0;
  for (const std::string& path : files) {
    std::ifstream in(path);
    if (!in) {
      std::cout << "FAIL " << path << ": cannot open the file\n";
      ++failed;
      continue;
    }
    std::stringstream buf;
    buf << in.rdbuf();
    std::vector<Case> cases;
    std::string error = split_cases(buf.str(), cases);
    if (!error.empty() || cases.empty()) {
      std::cout << "FAIL " << path << ": " << (error.empty() ? "no cases" : error) << "\n";
      ++failed;
      continue;
    }
    for (const Case& c : cases) (run_case(c, path) ? passed : failed)++;
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace texc::pass_tests
