// CudaInterpreter: the `cuda-interp` target. Runs a GPU kernel (the Device function of the cuda
// lowering) on the loop interpreter with GPU semantics, and checks that its threads do not race.
//
// Execution (lower/gpu/VirtualThreads.h, phase_threads): blocks run one after another; within a
// block the threads run phase by phase, a phase being the code between two barriers, each phase
// for every thread in turn (each thread with its own `local` buffers).
//
// Race detection. Every element of every shared or global buffer the kernel writes remembers, for
// the current phase of its block, the thread that last wrote it and up to two threads that read
// it. A data race is two different threads of a block touching one element in one phase, at
// least one of them writing (a thread re-reading or re-writing its own element is fine, and so are
// reads by many threads). A global element also remembers the blocks that wrote and read it during
// the whole run: one written by one block and read or written by another is a race, whatever the
// barriers (blocks have no order). The first race stops the run with an InterpError:
//
//   data race on shared buffer 'AS' element [37]: thread (block 0, thread 3) writes it in loop
//   'AS.ax' (AS[...] = ...), thread (block 0, thread 4) reads it in loop 'C.ki' (C[...] = ...),
//   with no barrier between them
//
// naming the buffer, the element, both threads (blockIdx and threadIdx coordinates, each (x, y, z)
// when the kernel uses more than x), whether each read or wrote, and the innermost loop (of the
// kernel as lowered) and the statement of each access. Virtual threads are serial loops inside a
// thread by then: one thread's virtual threads never race with each other. Any other failure of
// the run (an out-of-bounds access...) names the thread and the loop too.
//
// Cost: per element of a watched buffer a few words (the writer and two readers, with their
// phase); a new phase or block resets nothing (phases are numbered); the across-block state is
// reset by each run. Buffers the kernel never writes (the inputs) and `local` ones are not watched.
#pragma once
#include <memory>
#include <vector>

#include "backends/interp/Tensor.h"
#include "ir/Function.h"

namespace texc {

class CudaInterpreter {
 public:
  /// Prepares `kernel` (the cuda lowering's Device function, or any function with loops bound to
  /// blockIdx.* / threadIdx.*). Throws InterpError for a barrier that only part of a block
  /// reaches (naming the thread loop), or for a construct the loop interpreter cannot execute.
  explicit CudaInterpreter(const LoweredFunc& kernel);
  ~CudaInterpreter();
  CudaInterpreter(const CudaInterpreter&) = delete;
  CudaInterpreter& operator=(const CudaInterpreter&) = delete;

  /// Runs the kernel on one tensor per argument, as LoopInterpreter::run does. Throws InterpError
  /// for the first data race, or for an out-of-bounds access (naming the thread).
  void run(const std::vector<Tensor*>& args) const;

  /// The kernel as it runs: threads in phases, with the pragmas the race detector watches.
  const LoweredFunc& executed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace texc
