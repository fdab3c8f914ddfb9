// caller_workspace_entry: the host entry of an op compiled as a graph of kernels (ir/KernelCalls.h,
// lower/graph/GraphEntry.h) with its workspace given by the caller: `<op>_with_workspace(inputs...,
// outputs..., workspace)`. The entry `<op>` allocates its workspace arena around the kernel calls
// (an `Allocate` of the u8 buffer "workspace" of workspace_bytes); this function is the same calls
// with that buffer as its last argument instead (role Output: the kernels write it), allocating
// nothing. The caller passes at least workspace_bytes bytes aligned to kCallerWorkspaceAlignment,
// overlapping no other argument; nothing in it is kept between calls, so one buffer serves every
// call (one call at a time). The backends that compile a graph's entry (CPU: codegen_cpu; cuda:
// write_cuda_host_object, where the buffer is device memory) add this function beside it, and the
// C headers declare it with the macros <OP>_WORKSPACE_BYTES and <OP>_WORKSPACE_ALIGNMENT.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ir/Function.h"

namespace texc {

/// The alignment in bytes the caller's workspace must have: the arena's (plan_workspace places
/// every intermediate at a multiple of it) and texrt_alloc's.
constexpr int64_t kCallerWorkspaceAlignment = 64;

/// `<name>_with_workspace`.
std::string caller_workspace_entry_name(const std::string& entry_name);

/// The entry `entry` with a caller's workspace, or nullopt when `entry` is not a graph's host entry
/// with a workspace (workspace_bytes 0, or a body that is not an Allocate of "workspace").
std::optional<LoweredFunc> caller_workspace_entry(const LoweredFunc& entry);

}  // namespace texc
