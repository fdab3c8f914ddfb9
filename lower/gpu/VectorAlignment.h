// remark_unaligned_gpu_vectors: says where a vectorized loop of a GPU kernel will not be 128-bit.
//
// Assumes: runs on a GPU kernel right before vectorize_loops, so each Vectorized loop that
// vectorize_loops turns into vector code is still a loop. A kernel's pointer arguments and its
// shared buffers are 16-byte aligned (backends/llvm/CodeGenNVPTX.cpp).
//
// Guarantees: the statement is returned unchanged. For every such loop of L lanes and every
// global or shared buffer its body accesses at an index that depends on the loop variable, the
// index at the loop's first lane is analysed modulo constants (ir/ModulusRemainder.h); where that
// does not prove the alignment of one vector access (L x element bytes, at most 16), a remark at
// the `vectorize` primitive names the buffer and the alignment proven: the code generator then
// splits the vector into accesses that are (ld.global.f32 lane by lane for 4-byte alignment). A
// ragged row length (B[k, j] with N = 255) is the usual cause.
// Leaves alone: local buffers (registers), loops vectorize_loops will not vectorize (it remarks
// on those itself).
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt remark_unaligned_gpu_vectors(const Stmt& body);

}  // namespace texc
