#include "tools/driver/CompileTimes.h"

#include <fmt/format.h>

namespace texc {

void print_compile_times(std::ostream& os, const CompileTimes& t) {
  auto row = [&](const std::string& phase, const PhaseTime& time) {
    os << fmt::format("  {:<28} {:>9.2f} ms {:>9.2f} ms\n", phase, time.wall_ms, time.cpu_ms);
  };
  os << "compile time of " << t.file << " (--target " << t.target << "):\n"
     << fmt::format("  {:<28} {:>12} {:>12}\n", "phase", "wall", "cpu");
  row("frontend", t.frontend);
  for (const auto& [op, time] : t.lowering) row("lowering " + op, time);
  if (t.llvm) {
    row("LLVM IR generation", t.llvm->codegen);
    row("LLVM optimization", t.llvm->optimize);
    row("object emission", t.llvm->emit);
  }
  row("total", t.total);
}

}  // namespace texc
