#include "ir/IRVisitor.h"

namespace texc {

void IRVisitor::visit_expr(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
#define TEXC_EXPR_NODE(name) \
  case ExprKind::name: visit(static_cast<const name*>(e.get())); break;
#include "ir/NodeKinds.def"
  }
}

void IRVisitor::visit_stmt(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
#define TEXC_STMT_NODE(name) \
  case StmtKind::name: visit(static_cast<const name*>(s.get())); break;
#include "ir/NodeKinds.def"
  }
}

void IRVisitor::visit(const IntImm*) {}
void IRVisitor::visit(const FloatImm*) {}
void IRVisitor::visit(const Variable*) {}
void IRVisitor::visit(const Binary* op) { visit_expr(op->a); visit_expr(op->b); }
void IRVisitor::visit(const Not* op) { visit_expr(op->a); }
void IRVisitor::visit(const Select* op) {
  visit_expr(op->cond);
  visit_expr(op->true_value);
  visit_expr(op->false_value);
}
void IRVisitor::visit(const Cast* op) { visit_expr(op->value); }
void IRVisitor::visit(const Call* op) {
  for (const Expr& a : op->args) visit_expr(a);
}
void IRVisitor::visit(const Load* op) {
  for (const Expr& i : op->indices) visit_expr(i);
}
void IRVisitor::visit(const Ramp* op) { visit_expr(op->base); visit_expr(op->stride); }
void IRVisitor::visit(const Broadcast* op) { visit_expr(op->value); }
void IRVisitor::visit(const Let* op) { visit_expr(op->value); visit_expr(op->body); }
void IRVisitor::visit(const Reduce* op) {
  for (const IterVar& a : op->axes) { visit_expr(a.min); visit_expr(a.extent); }
  visit_expr(op->source);
}

void IRVisitor::visit(const Store* op) {
  for (const Expr& i : op->indices) visit_expr(i);
  visit_expr(op->value);
}
void IRVisitor::visit(const For* op) {
  visit_expr(op->min);
  visit_expr(op->extent);
  visit_stmt(op->body);
}
void IRVisitor::visit(const Block* op) {
  for (const IterVar& iv : op->iter_vars) { visit_expr(iv.min); visit_expr(iv.extent); }
  for (const Expr& b : op->bindings) visit_expr(b);
  visit_expr(op->predicate);
  visit_stmt(op->init);
  visit_stmt(op->body);
}
void IRVisitor::visit(const Allocate* op) {
  for (const Expr& e : op->buffer->shape) visit_expr(e);
  visit_stmt(op->body);
}
void IRVisitor::visit(const Seq* op) {
  for (const Stmt& s : op->stmts) visit_stmt(s);
}
void IRVisitor::visit(const IfThenElse* op) {
  visit_expr(op->cond);
  visit_stmt(op->then_case);
  visit_stmt(op->else_case);
}
void IRVisitor::visit(const LetStmt* op) { visit_expr(op->value); visit_stmt(op->body); }
void IRVisitor::visit(const Evaluate* op) { visit_expr(op->value); }
void IRVisitor::visit(const AttrStmt* op) { visit_expr(op->value); visit_stmt(op->body); }

namespace {
class ExprWalker : public IRVisitor {
 public:
  explicit ExprWalker(const std::function<void(const Expr&)>& f) : f_(f) {}
  void visit_expr(const Expr& e) override {
    if (!e) return;
    f_(e);
    IRVisitor::visit_expr(e);
  }

 private:
  const std::function<void(const Expr&)>& f_;
};
class StmtWalker : public IRVisitor {
 public:
  explicit StmtWalker(const std::function<void(const Stmt&)>& f) : f_(f) {}
  void visit_stmt(const Stmt& s) override {
    if (!s) return;
    f_(s);
    IRVisitor::visit_stmt(s);
  }
  void visit_expr(const Expr&) override {}

 private:
  const std::function<void(const Stmt&)>& f_;
};
}  // namespace

void for_each_expr(const Stmt& s, const std::function<void(const Expr&)>& f) { ExprWalker w(f); w.visit_stmt(s); }
void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f) { ExprWalker w(f); w.visit_expr(e); }
void for_each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f) { StmtWalker w(f); w.visit_stmt(s); }

}  // namespace texc
