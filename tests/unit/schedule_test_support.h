// Shared by the schedule_*_test.cpp files: compile a .tex source, lower it for the interp target,
// run the loop AST with the loop interpreter and compare every output with the reference
// interpreter; get the diagnostic a schedule raises; look at the lowered loop AST as text.
#pragma once
#include <optional>
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "backends/interp/LoopInterpreter.h"
#include "backends/interp/RunOp.h"
#include "frontend/Frontend.h"
#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "lower/Lower.h"

namespace texc::testing {

inline OpDef compile_op(const std::string& text) {
  FrontendOptions options;
  options.stdlib_dir = TEXC_TEST_STDLIB_DIR;
  Program program = compile_source("test.tex", text, options);
  REQUIRE(program.ops.size() == 1);
  return program.ops[0];
}

inline LoweredFunc lower_for_test(const OpDef& op, bool no_fuse = false) {
  LowerOptions options;
  options.target = "interp";
  options.no_fuse = no_fuse;
  return lower_op(op, options);
}

/// Runs `func` (lowered from op) on seeded random inputs and checks every output against the
/// reference interpreter; returns the failure message ("" when every output matches).
inline std::string run_and_compare(const OpDef& op, const LoweredFunc& func, uint64_t seed = 1) {
  LoopInterpreter interpreter(func);
  OpExecutor execute = [&](std::vector<Tensor*>& args) { interpreter.run(args); };
  RunOptions options;
  options.seed = seed;
  RunResult result = run_op(op, execute, options);
  return result.passed ? "" : result.message + "\n" + to_string(func);
}

/// Compiles, lowers and checks `text`; returns the lowered function for textual checks.
inline LoweredFunc check_correct(const std::string& text, bool no_fuse = false) {
  OpDef op = compile_op(text);
  LoweredFunc func = lower_for_test(op, no_fuse);
  std::string failure = run_and_compare(op, func);
  CHECK_MESSAGE(failure.empty(), failure);
  return func;
}

/// The loop AST right after lowering pass `pass` (e.g. "plan_storage", before flattening), lowered
/// for `target`.
inline std::string ir_after(const std::string& text, const std::string& pass, bool no_fuse = false,
                            const std::string& target = "interp") {
  OpDef op = compile_op(text);
  LowerOptions options;
  options.target = target;
  options.no_fuse = no_fuse;
  std::optional<std::string> ir;
  options.after_pass = [&](const std::string& name, const LoweredFunc& func) {
    if (name == pass) ir = to_string(func);
  };
  lower_op(op, options);
  REQUIRE(ir.has_value());
  return *ir;
}

/// The diagnostic that compiling and lowering `text` raises (fails the test if there is none).
inline Diagnostic schedule_error(const std::string& text) {
  try {
    lower_for_test(compile_op(text));
  } catch (const UserError& e) {
    return e.diag;
  }
  FAIL("expected a schedule error");
  return {};
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// The number of occurrences of `needle`.
inline size_t count_of(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace texc::testing

/// Checks that `text` contains (or does not contain) `needle`, printing the text when it fails.
#define CHECK_CONTAINS(text, needle) CHECK_MESSAGE(::texc::testing::contains((text), (needle)), (text))
#define CHECK_NOT_CONTAINS(text, needle) CHECK_MESSAGE(!::texc::testing::contains((text), (needle)), (text))
