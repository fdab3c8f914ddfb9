// InterpError: a run-time failure found while interpreting an op, e.g. an out-of-bounds read or
// write, an integer division by zero, or an IR construct the interpreters cannot execute.
// It is neither a crash nor an internal check failure: `texc run` reports it as a failed check
// with its message, because it usually means a lowering bug (or an unguarded read in the input).
#pragma once
#include <stdexcept>
#include <string>

namespace texc {

class InterpError : public std::runtime_error {
 public:
  explicit InterpError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace texc
