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
#include "tests/passes/CaseFiles.h"

namespace {

using namespace texc;
using pass_tests::Case;
using pass_tests::Section;

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

int main(int argc, char** argv) { return texc::pass_tests::run_case_files(argc, argv, "pass_test", run_case); }
