// use_ldmatrix: a tensor-core step's fragments loaded from shared memory by ldmatrix, one
// instruction per operand and warp instead of one load per element.
//
// Assumes: runs on a GPU kernel after flatten_storage (one index per access) and
// expand_virtual_threads; each mma statement (lower/gpu/MmaIntrinsics.h) lies under the loop bound
// to threadIdx.x, whose 32 iterations are the warp's lanes (make_device_function rejects other
// extents). Shared buffers start 16-byte aligned (backends/llvm/CodeGenNVPTX.cpp).
//
// Guarantees: an operand (A or B) of an mma whose elements are all loads of one shared buffer is
// rewritten when ldmatrix's layout (ldmatrix_source) delivers every lane's elements: the
// elements of one 32-bit register adjacent in memory (plain) or, for 16-bit elements, each 8 x 8
// matrix's columns adjacent (trans, e.g. B stored k by n); the start of each lane's row an affine
// function of the lane; and every row start provably 16-byte aligned (ir/ModulusRemainder.h). Its
// elements become `ldmatrix(S[row start of this lane], N, trans, register, element)` with one
// shared Load node per operand, which the code generator emits as one
// ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 and cuda-interp executes through the lanes' row
// starts (lower/gpu/MmaExchange.h). Each lane still receives the very elements it loaded before.
// An operand that does not qualify (f32 B stored k by n, rows not 16-byte aligned, a global
// buffer) keeps its loads.
// Leaves alone: everything but the arguments of mma statements.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt use_ldmatrix(const Stmt& body);

}  // namespace texc
