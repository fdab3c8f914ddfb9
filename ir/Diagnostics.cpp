#include "ir/Diagnostics.h"

#include <cstdlib>
#include <iostream>

#include "ir/Remark.h"

namespace texc {

const char* diag_format(DiagId id) {
  switch (id) {
#define DIAG(name, text) \
  case DiagId::name: return text;
#include "ir/Diagnostics.def"
#undef DIAG
  }
  return "?";
}

const char* diag_name(DiagId id) {
  switch (id) {
#define DIAG(name, text) \
  case DiagId::name: return #name;
#include "ir/Diagnostics.def"
#undef DIAG
  }
  return "?";
}

static void print_located(std::ostream& os, SourceLoc loc, const char* severity, const std::string& msg) {
  const SourceManager& sm = SourceManager::get();
  if (!loc.valid()) {
    os << "texc: " << severity << ": " << msg << "\n";
    return;
  }
  os << sm.path(loc.file) << ":" << loc.line << ":" << loc.col << ": " << severity << ": " << msg << "\n";
  std::string line = sm.line_text(loc.file, loc.line);
  os << line << "\n";
  std::string caret;
  for (uint32_t i = 1; i < loc.col && i - 1 < line.size(); ++i) caret += line[i - 1] == '\t' ? '\t' : ' ';
  os << caret << "^\n";
}

void print_diagnostic(std::ostream& os, const Diagnostic& d) {
  print_located(os, d.loc, "error", d.message);
  for (const DiagNote& n : d.notes) print_located(os, n.loc, "note", n.message);
}

void print_remark(std::ostream& os, const Remark& r) { print_located(os, r.loc, "remark", r.message); }

std::string format_diagnostic(const Diagnostic& d) {
  std::ostringstream os;
  print_diagnostic(os, d);
  return os.str();
}

namespace detail {
InternalErrorStream::InternalErrorStream(const char* file, int line, const char* cond) {
  os_ << "texc: internal error at " << file << ":" << line << ": check failed: " << cond << ": ";
}
InternalErrorStream::~InternalErrorStream() noexcept(false) { throw InternalError(os_.str()); }
}  // namespace detail

void print_internal_error(std::ostream& os, const InternalError& e) {
  os << e.what() << "\n(this is a bug in texc, not in your program)" << std::endl;
}

}  // namespace texc
