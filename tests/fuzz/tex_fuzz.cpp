// libFuzzer target over the whole front end: parse, check and elaborate arbitrary bytes as a .tex
// file. A UserError (a diagnostic) is the expected outcome for bad input; any crash, sanitizer
// report, internal error (TEXC_CHECK aborts) or hang is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/Frontend.h"
#include "ir/Diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  texc::FrontendOptions options;
  options.stdlib_dir = TEXC_FUZZ_STDLIB_DIR;
  try {
    texc::compile_source("fuzz.tex", text, options);
  } catch (const texc::UserError& e) {
    // Formatting the diagnostic exercises the location and source-line code too.
    (void)texc::format_diagnostic(e.diag);
  }
  return 0;
}
