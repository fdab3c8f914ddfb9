// A graph kernel's scratch: the buffers of its own that a CPU kernel would allocate on the heap on
// each call (a conv's padded input, over 64 KB), given to it by its caller instead, as trailing
// arguments of role Intermediate ("scratch arguments", lower/graph/ScratchParameters.h). The host
// entry of the graph passes each kernel's scratch in the workspace arena (lower/graph/PlanWorkspace.h);
// a caller that runs a kernel alone (texc run's per-kernel check) gives it a region of
// kernel_scratch_bytes bytes aligned to kScratchAlignment, each scratch argument at its
// kernel_scratch_offsets offset. Also here: the CPU code generator's rule for what goes on the
// heap (backends/llvm/CodeGenCPU.h), so that the pass takes exactly those buffers.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/Function.h"

namespace texc {

/// A "global" Allocate of up to this many bytes goes on the stack of a CPU function, a "local" one
/// up to kMaxStackBytesLocal; larger ones, and those of a non-constant size, on the heap.
constexpr int64_t kMaxStackBytesGlobal = 64 * 1024;
constexpr int64_t kMaxStackBytesLocal = 1024 * 1024;
/// Every scratch argument's offset in a kernel's scratch region, and the region's own alignment.
constexpr int64_t kScratchAlignment = 64;

/// The bytes of `buffer` when its shape is constant; nullopt otherwise.
std::optional<int64_t> constant_bytes(const Buffer& buffer);
/// Whether the CPU code generator allocates `buffer` (an Allocate's) on the heap.
bool cpu_allocates_on_heap(const Buffer& buffer);

/// Whether `arg`, an argument of a lowered function, is a scratch argument.
bool is_scratch_arg(const Buffer& arg);
/// Per argument of `func`: its offset in the function's scratch region, -1 for the arguments that
/// are not scratch. The scratch arguments follow one another in argument order, each at a
/// multiple of kScratchAlignment.
std::vector<int64_t> kernel_scratch_offsets(const LoweredFunc& func);
/// The bytes of `func`'s scratch region (0: no scratch argument).
int64_t kernel_scratch_bytes(const LoweredFunc& func);

}  // namespace texc
