// libFuzzer target over the whole compiler short of running code: parse, check and elaborate
// arbitrary bytes as a .tex file, then lower every op it defines for x86 (default schedules, the
// IR verifier after every pass) and generate its LLVM IR (unoptimized: the optimizer is LLVM's,
// not texc's). A UserError (a diagnostic) is the expected outcome for bad input; any crash,
// sanitizer report, internal error (TEXC_CHECK aborts) or hang is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/llvm/LLVMBackend.h"
#include "frontend/Frontend.h"
#include "ir/Diagnostics.h"
#include "lower/Lower.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  texc::FrontendOptions options;
  options.stdlib_dir = TEXC_FUZZ_STDLIB_DIR;
  try {
    texc::Program program = texc::compile_source("fuzz.tex", text, options);
    texc::LowerOptions lower;
    lower.target = "x86";
    lower.verify = true;
    texc::CpuTargetOptions target;
    target.mcpu = "x86-64";  // the same code whatever machine fuzzes
    for (const texc::OpDef& op : program.ops) {
      std::vector<texc::LoweredFunc> funcs{texc::lower_op(op, lower)};
      (void)texc::emit_llvm_ir_unoptimized(funcs, target);
    }
  } catch (const texc::UserError& e) {
    // Formatting the diagnostic exercises the location and source-line code too.
    (void)texc::format_diagnostic(e.diag);
  } catch (const texc::TargetOptionError&) {
    // A user error without a location (texc exits 1): e.g. a `lower llvm` intrinsic name LLVM
    // does not know, found only when the call is emitted.
  }
  return 0;
}
