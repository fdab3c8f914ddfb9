// EnvironmentError: the machine or this build lacks something a command needs (a device, a tool,
// a code generator that is not built in). texc prints its message and exits 2 (cli.md).
#pragma once
#include <stdexcept>
#include <string>

namespace texc {

class EnvironmentError : public std::runtime_error {
 public:
  explicit EnvironmentError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace texc
