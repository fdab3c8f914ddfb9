// lower_blocks: replaces every Block by plain statements; runs after all schedule primitives.
//
// Assumes: each Block's iter vars are bound to expressions of enclosing loop variables; a loop
// variable appears in the bindings of reduction iter vars or of spatial ones, never both.
// Guarantees: no Block remains. A Block's body becomes `if (predicate) body` with iter vars
// substituted. A reduction's init is hoisted to just before the outermost enclosing loop whose
// variable drives a reduction iter var; the loops between that point and the Block that drive only
// spatial iter vars are regenerated (fresh variables, same kinds but parallel and tensorized ones serial) around the init, guarded by the
// predicate's conjuncts that do not mention reduction loops. When no loop drives the reduction,
// the init runs right before the update. Every store of a Block's body and init carries the
// Block's stage name (Store::stage), so later passes, listings and features can still name the
// stage. Leaves everything else alone.
#pragma once
#include "ir/IR.h"

namespace texc {

Stmt lower_blocks(const Stmt& s);

}  // namespace texc
