// CompileTimes: how long each phase of compiling one .tex file took (`--time-compile`): the front
// end (parse, check, elaborate every op), the lowering of each op, and, for the CPU targets, the
// LLVM phases of the file's one object (loop AST to LLVM IR, optimization, object emission).
// Printed as a small table to stderr, after the outputs are written.
#pragma once
#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "backends/llvm/LLVMBackend.h"

namespace texc {

struct CompileTimes {
  std::string file;
  std::string target;
  double frontend_ms = 0;
  std::vector<std::pair<std::string, double>> lowering_ms;  // per op, in order
  std::optional<CpuCompileTimes> llvm;                      // when an object was written
  double total_ms = 0;                                      // parse to object, everything included
};

/// Milliseconds since `start` on the steady clock.
double milliseconds_since(std::chrono::steady_clock::time_point start);

void print_compile_times(std::ostream& os, const CompileTimes& times);

}  // namespace texc
