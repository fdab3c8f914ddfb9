// IRVisitor: a read-only walk over Exprs and Stmts. The default visits every child in order;
// override visit() for the kinds you care about and call the base to keep descending.
#pragma once
#include <functional>

#include "ir/IR.h"

namespace texc {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void visit_expr(const Expr& e);
  virtual void visit_stmt(const Stmt& s);

 protected:
#define TEXC_EXPR_NODE(name) virtual void visit(const name* op);
#define TEXC_STMT_NODE(name) virtual void visit(const name* op);
#include "ir/NodeKinds.def"
};

/// Calls f on every Expr node (pre-order) under the given root.
void for_each_expr(const Stmt& s, const std::function<void(const Expr&)>& f);
void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f);
/// Calls f on every Stmt node (pre-order) under s.
void for_each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f);

}  // namespace texc
