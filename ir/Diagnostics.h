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
// An internal error (a bug in texc) is TEXC_CHECK(cond) << "details"; it throws InternalError,
// which is no std::runtime_error or std::logic_error (so code that handles the user's and the
// machine's failures does not take it for one of them): a program that embeds texc's libraries
// catches it and goes on; the texc command prints "texc: internal error ... (this is a bug in
// texc, not in your program)" and aborts, so tests can tell the two apart.
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

/// Thrown by TEXC_CHECK and TEXC_UNREACHABLE: a bug in texc. what() is
/// "texc: internal error at FILE:LINE: check failed: COND: details".
class InternalError : public std::exception {
 public:
  explicit InternalError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

/// What the texc command prints for an InternalError before it aborts.
void print_internal_error(std::ostream& os, const InternalError& e);

namespace detail {
class InternalErrorStream {
 public:
  InternalErrorStream(const char* file, int line, const char* cond);
  [[noreturn]] ~InternalErrorStream() noexcept(false);
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
