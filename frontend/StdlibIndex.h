// Which standard-library module defines an op: for "unknown op 'relu'; add `import nn.activation`".
#pragma once
#include <map>
#include <string>

namespace texc {

/// Every op the standard library under `stdlib_dir` defines, by name, with the module that
/// defines it in import syntax ("relu" -> "nn.activation"). Read from the files' `op NAME(` lines
/// (no parsing: an unreadable or odd file only makes the index smaller); only for diagnostics.
std::map<std::string, std::string> stdlib_op_modules(const std::string& stdlib_dir);

}  // namespace texc
