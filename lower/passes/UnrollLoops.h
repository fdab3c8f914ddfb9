// unroll_loops: every Unrolled loop of small constant extent is replaced by copies of its body.
//
// Assumes: runs after vectorize_loops (unrolled copies of vector code stay vector code); loops
// inside an Unrolled loop are unrolled first (the pass works bottom-up).
//
// Guarantees: the result computes exactly what the input computes. An Unrolled loop over
// [min, min + E) with constant 0 <= E <= 64, whose unrolled size (E times the node count of its
// body) stays within 16384 nodes, becomes a Seq of E copies of its body, copy i with the loop
// variable replaced by min + i (simplified); every copy but the first has fresh variables and
// buffers (fresh_copy). E = 0 gives the empty Seq.
//
// Leaves alone: Unrolled loops of non-constant extent or beyond the limits keep their kind (the
// backend may unroll them or run them serially); every other loop.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt unroll_loops(const Stmt& s);

}  // namespace texc
