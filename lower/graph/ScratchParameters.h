// scratch_as_parameters: a graph kernel lowered for a CPU target (x86, arm) with the buffers it
// would allocate on the heap on each call turned into arguments its caller gives: "scratch
// arguments" (ir/KernelScratch.h), placed by the host entry in the workspace arena
// (lower/graph/PlanWorkspace.h, GraphEntry.h).
//
// Assumes: `kernel` is lowered (its Allocates are flat buffers) and its arguments are its inputs
// then its outputs. Takes: every Allocate outside any parallel loop whose buffer has a constant
// size and which the CPU code generator puts on the heap (cpu_allocates_on_heap: a global buffer
// over 64 KB, a local one over 1 MB): a conv's padded input, its packed weights when they are not
// const. Guarantees: each taken Allocate is gone and its buffer (role Intermediate) is an argument
// after the outputs, in the order the Allocates appear, with its dims in arg_dims; the body
// computes what it computed, since such a buffer is written before it is read within one call (its
// contents on entry are undefined either way) and, outside parallel loops, one buffer serves every
// iteration of the serial loops around its Allocate. Leaves alone: the Allocates inside a parallel
// loop (one per task: a buffer per thread, still allocated by the kernel), those on the stack
// (up to the limits above), those of a non-constant size, and everything else: a kernel with no
// such Allocate is returned as it was, byte for byte. Not for the GPU targets: a cuda kernel's
// buffers are shared or local memory (or are the graph's intermediates, already in the workspace),
// never heap allocations of its own.
#pragma once
#include "ir/Function.h"

namespace texc {

LoweredFunc scratch_as_parameters(const LoweredFunc& kernel);

}  // namespace texc
