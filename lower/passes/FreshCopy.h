// fresh_copy: a copy of a statement that can sit beside the original.
//
// Every variable the statement binds (loop variables, LetStmt and Let variables) and every buffer
// it allocates is replaced by a new one with the same name, type (and shape, scope, role), so that
// no variable is bound twice and no buffer is allocated twice when a pass duplicates a loop body
// (partition_loops, unroll_loops). Free variables and buffers are shared with the original.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt fresh_copy(const Stmt& s);

}  // namespace texc
