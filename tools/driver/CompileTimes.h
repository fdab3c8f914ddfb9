// CompileTimes: how long each phase of compiling one .tex file took (`--time-compile`): the front
// end (parse, check, elaborate every op), the lowering of each op, and, for the CPU targets, the
// LLVM phases of the file's one object (loop AST to LLVM IR, optimization, object emission).
// Each phase is measured in wall-clock and CPU time (PhaseClock, LLVMBackend.h). Printed as a small
// table to stderr, after the outputs are written.
#pragma once
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
  PhaseTime frontend;
  std::vector<std::pair<std::string, PhaseTime>> lowering;  // per op, in order
  std::optional<CpuCompileTimes> llvm;                      // when an object was written
  PhaseTime total;                                          // parse to object, everything included
};

/// The table: one row per phase, wall-clock and CPU milliseconds.
void print_compile_times(std::ostream& os, const CompileTimes& times);

}  // namespace texc
