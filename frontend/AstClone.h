// Deep copies of syntax-tree pieces (frontend/Ast.h), for passes that write a new op from an old
// one (frontend/LayoutPlan.h): the nodes own their children through unique_ptr, so a copy is a
// walk. `clone_expr` may rewrite as it copies: `rewrite` is asked first at every node, and what
// it returns (non-null) replaces that node's copy.
#pragma once
#include <functional>

#include "frontend/Ast.h"

namespace texc::ast {

using ExprRewrite = std::function<ExprPtr(const Expr&)>;

/// A copy of `e`; where `rewrite` returns an expression for a node, that replaces the node's copy.
ExprPtr clone_expr(const Expr& e, const ExprRewrite& rewrite = nullptr);
/// A copy of `e`, or null for null.
ExprPtr clone_expr_or_null(const ExprPtr& e, const ExprRewrite& rewrite = nullptr);
OpParam clone_param(const OpParam& p);

}  // namespace texc::ast
