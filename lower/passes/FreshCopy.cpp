#include "lower/passes/FreshCopy.h"

#include <unordered_map>

#include "ir/IRMutator.h"

namespace texc {

namespace {

class FreshCopier : public IRMutator {
 protected:
  Var fresh(const Var& v) {
    Var f = Variable::make(v->name, v->type);
    vars_[v.get()] = f;
    return f;
  }
  Buffer buffer(const Buffer& b) {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }

  Expr mutate(const Variable* op, const Expr& self) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? self : it->second;
  }
  Expr mutate(const Let* op, const Expr&) override {
    Expr value = mutate_expr(op->value);
    Var v = fresh(op->var);
    return Let::make(v, value, mutate_expr(op->body));
  }
  Expr mutate(const Load* op, const Expr&) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    return Load::make(buffer(op->buffer), std::move(idx));
  }
  Stmt mutate(const Store* op, const Stmt&) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    Expr value = mutate_expr(op->value);
    return op->with(buffer(op->buffer), std::move(idx), value);
  }
  Stmt mutate(const For* op, const Stmt&) override {
    Expr mn = mutate_expr(op->min), ext = mutate_expr(op->extent);
    Var v = fresh(op->var);
    return For::make(v, mn, ext, op->for_kind, mutate_stmt(op->body), op->thread_tag);
  }
  Stmt mutate(const LetStmt* op, const Stmt&) override {
    Expr value = mutate_expr(op->value);
    Var v = fresh(op->var);
    return LetStmt::make(v, value, mutate_stmt(op->body));
  }
  Stmt mutate(const Allocate* op, const Stmt&) override {
    const BufferNode& b = *op->buffer;
    bool changed = false;
    auto shape = mutate_exprs(b.shape, &changed);
    Buffer copy = BufferNode::make(b.name, b.dtype, shape, b.scope, b.role);
    buffers_[op->buffer.get()] = copy;
    return Allocate::make(copy, mutate_stmt(op->body));
  }

 private:
  std::unordered_map<const Variable*, Expr> vars_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

}  // namespace

Stmt fresh_copy(const Stmt& s) { return FreshCopier().mutate_stmt(s); }

}  // namespace texc
