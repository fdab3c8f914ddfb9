// expand_virtual_threads — a pass of the VDLA pipeline (backends/vdla/Codegen.cpp), VTA's
// InjectVirtualThread. Loop AST -> loop AST: which work of which thread comes next is a question
// about the loops and the leaves under them, before any instruction exists.
//
// Assumes: `func` is lowered for `--target vdla` (lower/Lower.h); a leaf is a statement that is
// one kind of accelerator work (InjectIntrinsics.h's classify_leaf).
// Guarantees: each `bound(vthread) v in 0..n` loop (n > 1 may not hold another) is sunk to the
// leaves under it: each maximal run of consecutive leaves of one engine in a sequence (LOAD:
// copies; COMPUTE: resets and GEMMs), and each other leaf, becomes `bound(vthread) v' in 0..n`
// around it (a fresh v' per run, v replaced by v' inside), so the walk (WalkLoops.h) runs the run
// once per thread in a row: thread 1's loads overlap thread 0's GEMMs. Everything between the old
// loop and the leaves (loops, conditions, lets) takes the thread at 0 (v replaced by 0), and each
// buffer allocated there is marked `attr virtual_thread(v) = n`: the walk gives it one copy per
// thread. A virtual thread inside a virtual thread of more than one thread is a UserError
// (VdlaCannotMap) at `loc`.
// Leaves alone: the leaves themselves (but for v), everything outside vthread loops.
#pragma once
#include "ir/Function.h"
#include "ir/SourceLoc.h"

namespace texc::vdla {

LoweredFunc expand_virtual_threads(const LoweredFunc& func, SourceLoc loc);

}  // namespace texc::vdla
