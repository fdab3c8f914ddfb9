// The case files of the text pass tests, shared by pass_test (PassTest.cpp) and vdla_pass_test
// (VdlaPassTest.cpp): the format, the splitting into cases, and the driver's main loop.
//
// A case file holds one or more cases, each `// pass: NAME`, then `// before` and `// expected`
// sections (what each section holds is the driver's business). Lines before the first `// pass:`
// are ignored; a line starting with `#` inside a section is a comment (kept as an empty line, so
// line numbers in diagnostics stay those of the file).
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace texc::pass_tests {

struct Section {
  std::string text;
  int first_line = 0;  // 1-based line of the section's first line in the file
};

struct Case {
  std::string pass;
  int line = 0;  // of the `// pass:` line
  Section before, expected;
};

std::string trim(const std::string& s);

/// Splits a file into cases. Returns "" or the message of a malformed file.
std::string split_cases(const std::string& text, std::vector<Case>& cases);

/// The main of a pass-test driver: every case of every FILE_OR_DIR argument (a directory: its .txt
/// files, sorted) through `run_case` (which prints PASS or FAIL). Prints `N passed, M failed`;
/// returns 0 when every case passed, 1 if one failed or a file is malformed, 2 without arguments.
int run_case_files(int argc, char** argv, const std::string& program,
                   const std::function<bool(const Case&, const std::string& path)>& run_case);

}  // namespace texc::pass_tests
