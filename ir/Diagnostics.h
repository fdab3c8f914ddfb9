// User diagnostics and internal errors: two separate channels.
//
// A user error (a mistake in the .tex input or the command line) is raised with
//   throw_error(DiagId::UnknownName, loc, name);
// which throws UserError carrying a Diagnostic. texc prints it as
//   file:line:col: error: message
//   <source line>
//   <caret>
// and exits 1. Every message format lives in ir/Diagnostics.def.
//
// An internal error (a bug in texc) is TEXC_CHECK(cond) << "details"; it prints
// "texc: internal error" and aborts, so tests can tell the two apart.
#pragma once
#include <fmt/format.h>

#include <exception>
#include <iosfwd>
#include <sstream>
#include <string>
#include <vector>

#include "ir/SourceLoc.h"

namespace texc {

enum class DiagId {
#define DIAG(id, text) id,
#include "ir/Diagnostics.def"
#undef DIAG
};

/// The format string of a diagnostic (from Diagnostics.def).
const char* diag_format(DiagId id);
/// The identifier of a diagnostic as written in Diagnostics.def ("UnknownName").
const char* diag_name(DiagId id);

struct DiagNote {
  SourceLoc loc;
  std::string message;
};

struct Diagnostic {
  DiagId id;
  SourceLoc loc;
  std::string message;
  std::vector<DiagNote> notes;
};

/// Thrown for errors in the user's input. Never thrown for texc's own bugs.
class UserError : public std::exception {
 public:
  explicit UserError(Diagnostic d) : diag(std::move(d)) {}
  const char* what() const noexcept override { return diag.message.c_str(); }
  Diagnostic diag;
};

template <typename... Args>
Diagnostic make_diagnostic(DiagId id, SourceLoc loc, Args&&... args) {
  return Diagnostic{id, loc, fmt::format(fmt::runtime(diag_format(id)), std::forward<Args>(args)...), {}};
}

template <typename... Args>
[[noreturn]] void throw_error(DiagId id, SourceLoc loc, Args&&... args) {
  throw UserError(make_diagnostic(id, loc, std::forward<Args>(args)...));
}

/// Prints "file:line:col: error: message", the source line and a caret, then the notes.
void print_diagnostic(std::ostream& os, const Diagnostic& d);
/// The same, as a string.
std::string format_diagnostic(const Diagnostic& d);

namespace detail {
class InternalErrorStream {
 public:
  InternalErrorStream(const char* file, int line, const char* cond);
  [[noreturn]] ~InternalErrorStream();
  template <typename T>
  InternalErrorStream& operator<<(const T& v) {
    os_ << v;
    return *this;
  }

 private:
  std::ostringstream os_;
};
}  // namespace detail

}  // namespace texc

/// Internal invariant check: a failure is a bug in texc, never the user's fault.
#define TEXC_CHECK(cond) \
  if (cond) {            \
  } else                 \
    ::texc::detail::InternalErrorStream(__FILE__, __LINE__, #cond)
#define TEXC_UNREACHABLE() ::texc::detail::InternalErrorStream(__FILE__, __LINE__, "unreachable")
