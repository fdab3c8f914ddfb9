// The block-wide barrier `thread_barrier()` (bar.sync) as a statement: making one, recognising
// one, finding one under a statement, and removing them all. Shared by the GPU passes
// (insert_barriers, the cross-thread reductions, virtual threads, shuffle exchanges) and
// cuda-interp.
#pragma once
#include "ir/IR.h"

namespace texc {

/// `thread_barrier()` as a statement.
Stmt thread_barrier();
/// Whether `s` is one.
bool is_thread_barrier(const Stmt& s);
/// Whether `s` holds one anywhere.
bool contains_thread_barrier(const Stmt& s);
/// `s` with every barrier replaced by a no-op (cuda-interp after phasing; tests that remove them).
Stmt without_thread_barriers(const Stmt& s);

}  // namespace texc
