// Structural equality of IR modulo renaming of bound variables (alpha-equivalence).
//
// Two trees are equal when they have the same node kinds, types, constants and operators in the
// same places and their bound variables (loops, lets, block iter vars, reduction axes) correspond
// one-to-one. Free variables correspond when they are the same object or have the same name and
// type; buffers correspond by name, element type, rank and scope (and allocations also by shape),
// always one-to-one. Nested Seqs compare flattened, and an empty Seq equals a missing else branch.
// This is how pass tests compare a pass's output with the expected text (ir/IRParser.h).
#pragma once
#include "ir/Function.h"
#include "ir/IR.h"

namespace texc {

bool structurally_equal(const Expr& a, const Expr& b);
bool structurally_equal(const Stmt& a, const Stmt& b);
/// Names, arguments (name, type, shape, role, scope, logical dims) and bodies.
bool structurally_equal(const LoweredFunc& a, const LoweredFunc& b);

}  // namespace texc
