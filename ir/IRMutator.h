// IRMutator: rebuilds the IR bottom-up. The default mutates every child and returns the original
// node when nothing changed (so unchanged subtrees are shared). Override mutate() for the kinds
// you rewrite.
//
// For a rewrite of one node kind, mutate_with reads better than a class (Halide's mutate_with):
//
//   Stmt out = mutate_with<For>(body, [&](auto& self, const For* op, const Stmt& s) {
//     if (op->for_kind != ForKind::Vectorized) return self.descend(op, s);  // the default
//     return op->with_kind(ForKind::Serial);
//   });
#pragma once
#include <type_traits>
#include <utility>

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

/// The mutator mutate_with builds: every node of kind Node goes to f(*this, op, self); f calls
/// descend(op, self) for the default (mutate the children, keep the node if none changed).
template <typename Node, typename F>
class LambdaMutator : public IRMutator {
 public:
  using Ref = std::conditional_t<std::is_base_of_v<StmtNode, Node>, Stmt, Expr>;
  explicit LambdaMutator(F f) : f_(std::move(f)) {}
  Ref descend(const Node* op, const Ref& self) { return IRMutator::mutate(op, self); }

 protected:
  using IRMutator::mutate;
  Ref mutate(const Node* op, const Ref& self) override { return f_(*this, op, self); }

 private:
  F f_;
};

/// `root` with every node of kind Node rewritten by f(mutator, op, self) (see LambdaMutator);
/// every other node is rebuilt only where a child changed.
template <typename Node, typename F>
Stmt mutate_with(const Stmt& root, F f) {
  LambdaMutator<Node, F> m(std::move(f));
  return m.mutate_stmt(root);
}
template <typename Node, typename F>
Expr mutate_with(const Expr& root, F f) {
  LambdaMutator<Node, F> m(std::move(f));
  return m.mutate_expr(root);
}

}  // namespace texc
