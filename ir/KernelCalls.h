// kernel_calls: a host function whose body only calls kernels (the host entry of an op compiled as
// a graph of kernels, lower/graph/GraphEntry.h), read back as its list of calls. Such a body is an
// optional `Allocate` of one u8 buffer named "workspace" around a sequence of `Evaluate(Call)` of
// kind Extern, each argument the address (`address_of(Load)`) of an argument's first element or of
// the workspace at a constant byte offset. A target that cannot compile that loop AST as it is
// (cuda: the kernels are launched, the workspace is device memory) runs the list instead.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/Function.h"

namespace texc {

/// One argument of a kernel call: the function's argument `arg` (its first element), or, when
/// `arg` is -1, the workspace at `workspace_offset` bytes.
struct KernelCallArg {
  int arg = -1;
  int64_t workspace_offset = 0;
};

struct KernelCall {
  std::string kernel;                 // the called function's name
  std::vector<KernelCallArg> args;    // in call order
};

struct KernelCalls {
  std::vector<KernelCall> calls;      // in order
  int64_t workspace_bytes = 0;        // the workspace's size (0: none)
};

/// The calls of `func`, or nullopt when its body is anything else (a function of loops).
std::optional<KernelCalls> kernel_calls(const LoweredFunc& func);

}  // namespace texc
