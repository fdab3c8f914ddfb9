// Substitution of variables by expressions, and of buffers by buffers.
#pragma once
#include <unordered_map>

#include "ir/IR.h"

namespace texc {

using VarMap = std::unordered_map<const Variable*, Expr>;
using BufferMap = std::unordered_map<const BufferNode*, Buffer>;

Expr substitute(const Expr& e, const VarMap& vars);
Stmt substitute(const Stmt& s, const VarMap& vars);
/// Replaces every Load/Store/Allocate of a buffer in the map by its replacement
/// (same rank and element type).
Stmt substitute_buffers(const Stmt& s, const BufferMap& buffers);
Expr substitute_buffers(const Expr& e, const BufferMap& buffers);
/// True if e (or s) mentions variable v.
bool uses_var(const Expr& e, const Variable* v);
bool uses_var(const Stmt& s, const Variable* v);

}  // namespace texc
