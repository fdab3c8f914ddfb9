#include "tools/texc/CompileTimes.h"

#include <fmt/format.h>

namespace texc {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void print_compile_times(std::ostream& os, const CompileTimes& t) {
  auto row = [&](const std::string& phase, double ms) { os << fmt::format("  {:<28} {:>9.2f} ms\n", phase, ms); };
  os << "compile time of " << t.file << " (--target " << t.target << "):\n";
  row("frontend", t.frontend_ms);
  for (const auto& [op, ms] : t.lowering_ms) row("lowering " + op, ms);
  if (t.llvm) {
    row("LLVM IR generation", t.llvm->codegen_ms);
    row("LLVM optimization", t.llvm->optimize_ms);
    row("object emission", t.llvm->emit_ms);
  }
  row("total", t.total_ms);
}

}  // namespace texc
