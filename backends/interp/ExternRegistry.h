// ExternRegistry: the host C functions that the loop interpreter may call for
// `Call{Extern, "symbol", args}` nodes (a tensorized loop nest lowered to `lower extern "symbol"`).
//
// Arguments arrive as ExternArg: `address_of(Load)` arguments as element pointers, integer
// arguments in `i`, float arguments in `f`. The registry starts with the functions that texc's
// own tests and examples use (e.g. `my_dot16` of language.md); tests may register more.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace texc {

struct ExternArg {
  void* pointer = nullptr;  // for address_of(...) arguments
  int64_t i = 0;            // for integer and bool arguments
  double f = 0;             // for floating-point arguments
};

using ExternFunction = std::function<int64_t(const std::vector<ExternArg>& args)>;

/// Registers (or replaces) the host function for C symbol `name`.
void register_extern(const std::string& name, ExternFunction function);
/// The function registered for `name`, or nullptr.
const ExternFunction* find_extern(const std::string& name);

}  // namespace texc
