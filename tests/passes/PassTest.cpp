// pass_test: runs text-based pass tests.
//
//   pass_test FILE_OR_DIR...
//
// A case file holds one or more cases, each written as
//
//   // pass: simplify
//   // before
//   func f(...) { ... }
//   // expected
//   func f(...) { ... }
//
// Both funcs are parsed with ir/IRParser.h; the named pass runs on `before` and its result must be
// structurally equal (ir/StructuralEqual.h) to `expected`. On a mismatch both are printed. Lines
// before the first `// pass:` and other comments are ignored. A directory argument runs every .txt
// file in it. Prints `N passed, M failed`; the exit status is 1 if any case failed.
//
// A case may name any function pass of lower/Lower.h (find_function_pass): the passes lower_op
// runs after the schedule, for every target. The case runs the entry's own `run`, the function
// lower_op runs, with the empty PassContext (no schedule: no bind locations, no storage_align,
// every matching thread loop a reduction candidate).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/StructuralEqual.h"
#include "ir/Verifier.h"
#include "lower/Lower.h"

namespace {

using namespace texc;

struct Section {
  std::string text;
  int first_line = 0;  // 1-based line of the section's first line in the file
};

struct Case {
  std::string pass;
  int line = 0;  // of the `// pass:` line
  Section before, expected;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Splits a file into cases. Returns an error message for a malformed file.
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
    if (current) current->text += line + "\n";
  }
  for (const Case& c : cases) {
    if (c.before.first_line == 0 || c.expected.first_line == 0)
      return "line " + std::to_string(c.line) + ": a case needs a '// before' and an '// expected' section";
  }
  return "";
}

// Parses a section so that diagnostics point at the right line of the file.
LoweredFunc parse_section(const Section& s, const std::string& path) {
  return parse_func(std::string(s.first_line - 1, '\n') + s.text, path);
}

bool run_case(const Case& c, const std::string& path) {
  std::string where = path + ":" + std::to_string(c.line);
  const FunctionPass* pass = find_function_pass(c.pass);
  if (!pass) {
    std::cout << "FAIL " << where << ": unknown pass '" << c.pass << "'\n";
    return false;
  }
  LoweredFunc before, expected;
  try {
    before = parse_section(c.before, path);
    expected = parse_section(c.expected, path);
  } catch (const UserError& e) {
    std::cout << "FAIL " << where << ": the case does not parse\n" << format_diagnostic(e.diag);
    return false;
  }
  if (auto problem = verify(before)) {
    std::cout << "FAIL " << where << ": the `before` func is invalid IR: " << *problem << "\n";
    return false;
  }
  LoweredFunc after = pass->run(before, PassContext{});
  if (auto problem = verify(after)) {
    std::cout << "FAIL " << where << ": '" << c.pass << "' produced invalid IR: " << *problem << "\n"
              << to_string(after);
    return false;
  }
  if (!structurally_equal(after, expected)) {
    std::cout << "FAIL " << where << ": '" << c.pass << "' gave\n"
              << to_string(after) << "but expected\n"
              << to_string(expected);
    return false;
  }
  std::cout << "PASS " << where << " (" << c.pass << ")\n";
  return true;
}

}  // namespace

int main(int argc, char** argv) {
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
    std::cerr << "usage: pass_test FILE_OR_DIR...\n";
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
