// IRMutator: rebuilds the IR bottom-up. The default mutates every child and returns the original
// node when nothing changed (so unchanged subtrees are shared). Override mutate() for the kinds
// you rewrite.
#pragma once
#include "ir/IR.h"

namespace texc {

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate_expr(const Expr& e);
  virtual Stmt mutate_stmt(const Stmt& s);

 protected:
#define TEXC_EXPR_NODE(name) virtual Expr mutate(const name* op, const Expr& self);
#define TEXC_STMT_NODE(name) virtual Stmt mutate(const name* op, const Stmt& self);
#include "ir/NodeKinds.def"

  std::vector<Expr> mutate_exprs(const std::vector<Expr>& v, bool* changed);
  std::vector<IterVar> mutate_iter_vars(const std::vector<IterVar>& v, bool* changed);
};

}  // namespace texc
