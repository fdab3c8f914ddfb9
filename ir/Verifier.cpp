#include "ir/Verifier.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"

namespace texc {

namespace {

class Verifier : public IRVisitor {
 public:
  explicit Verifier(const VerifyOptions& options) : options_(options) {}

  std::optional<std::string> run(const LoweredFunc& f) {
    for (const Buffer& b : f.args) {
      buffers_.insert(b.get());
      for (const Expr& d : b->shape)
        for_each_expr(d, [&](const Expr& e) {
          if (const Variable* v = e->as<Variable>()) bound_[v]++;
        });
    }
    for (const Buffer& b : f.args) check_shape(b);
    if (!f.body) return "the function '" + f.name + "' has no body";
    visit_stmt(f.body);
    return problem_;
  }

 protected:
  void fail(const std::string& msg) {
    if (problem_) return;
    std::string where;
    if (!context_.empty()) {
      std::string text = to_string(context_.back());
      where = text.substr(0, text.find('\n'));
      while (!where.empty() && where[0] == ' ') where.erase(0, 1);
    }
    problem_ = where.empty() ? msg : msg + " in `" + where + "`";
  }

  void bind(const Var& v) {
    if (bound_[v.get()] > 0) fail("variable '" + v->name + "' is bound again inside its own scope");
    bound_[v.get()]++;
  }
  void unbind(const Var& v) { bound_[v.get()]--; }

  void check_shape(const Buffer& b) {
    for (const Expr& d : b->shape) {
      if (!d || !d->type.is_integer() || !d->type.is_scalar()) fail("buffer '" + b->name + "' has a non-integer extent");
      visit_expr(d);
    }
  }

  void check_buffer(const Buffer& b, size_t n_indices, const std::vector<Expr>& indices, const char* what) {
    if (!buffers_.count(b.get()))
      fail(std::string(what) + " of buffer '" + b->name + "', which is neither an argument nor allocated here");
    if (n_indices != b->ndim())
      fail(std::string(what) + " of '" + b->name + "' with " + std::to_string(n_indices) + " indices, but it has rank " +
           std::to_string(b->ndim()));
    for (const Expr& i : indices)
      if (!i || !i->type.is_integer()) fail(std::string(what) + " of '" + b->name + "' with a non-integer index");
  }

  static int lanes_of(const std::vector<Expr>& indices) {
    int lanes = 1;
    for (const Expr& i : indices)
      if (i) lanes = std::max<int>(lanes, i->type.lanes);
    return lanes;
  }

  void visit_stmt(const Stmt& s) override {
    if (!s || problem_) return;
    context_.push_back(s);
    IRVisitor::visit_stmt(s);
    context_.pop_back();
  }
  void visit_expr(const Expr& e) override {
    if (problem_) return;
    if (!e) {
      fail("a null expression");
      return;
    }
    IRVisitor::visit_expr(e);
  }

  // ---- expressions

  void visit(const Variable* op) override {
    auto it = bound_.find(op);
    if (it == bound_.end() || it->second <= 0)
      fail("variable '" + op->name + "' is used outside any loop, let or block that binds it");
  }
  void visit(const Binary* op) override {
    if (op->a && op->b && op->a->type != op->b->type)
      fail(std::string("operands of '") + binary_op_symbol(op->op) + "' have types " + op->a->type.str() + " and " +
           op->b->type.str());
    IRVisitor::visit(op);
  }
  void visit(const Select* op) override {
    if (op->cond && !op->cond->type.is_bool()) fail("select condition of type " + op->cond->type.str());
    if (op->true_value && op->false_value && op->true_value->type != op->false_value->type)
      fail("select branches of types " + op->true_value->type.str() + " and " + op->false_value->type.str());
    IRVisitor::visit(op);
  }
  void visit(const Load* op) override {
    check_buffer(op->buffer, op->indices.size(), op->indices, "load");
    if (op->type.element_of() != op->buffer->dtype)
      fail("load of type " + op->type.str() + " from '" + op->buffer->name + "' of " + op->buffer->dtype.str());
    IRVisitor::visit(op);
  }
  void visit(const Let* op) override {
    visit_expr(op->value);
    if (op->value && op->var->type != op->value->type)
      fail("let variable '" + op->var->name + "' of type " + op->var->type.str() + " bound to a " +
           op->value->type.str());
    bind(op->var);
    visit_expr(op->body);
    unbind(op->var);
  }
  void visit(const Call* op) override {
    if (op->call_kind == CallKind::Intrinsic && !intrinsic_of(op))
      fail("call of '" + op->name + "' with " + std::to_string(op->args.size()) +
           " argument(s), which is not an intrinsic of ir/Intrinsics.def");
    IRVisitor::visit(op);
  }
  void visit(const Reduce* op) override { fail("a reduction (" + std::string(reduce_kind_name(op->reduce_kind)) + ") is left in the loop AST"); }

  // ---- statements

  void visit(const Store* op) override {
    check_buffer(op->buffer, op->indices.size(), op->indices, "store");
    if (op->value) {
      if (op->value->type.element_of() != op->buffer->dtype)
        fail("store of " + op->value->type.str() + " into '" + op->buffer->name + "' of " + op->buffer->dtype.str());
      if (op->value->type.lanes != lanes_of(op->indices))
        fail("store of " + op->value->type.str() + " to " + std::to_string(lanes_of(op->indices)) + " lane(s) of '" +
             op->buffer->name + "'");
    }
    IRVisitor::visit(op);
  }
  void visit(const For* op) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    if (op->var->type != Index()) fail("loop variable '" + op->var->name + "' has type " + op->var->type.str() + ", not i64");
    if (op->min && op->extent && (op->min->type != Index() || op->extent->type != Index()))
      fail("bounds of loop '" + op->var->name + "' are not i64");
    if (op->for_kind == ForKind::ThreadBound && op->thread_tag.empty())
      fail("thread-bound loop '" + op->var->name + "' has no thread tag");
    bind(op->var);
    visit_stmt(op->body);
    unbind(op->var);
  }
  void visit(const Block* op) override {
    if (options_.require_no_blocks) {
      fail("block '" + op->stage + "' is left after lower_blocks");
      return;
    }
    if (op->iter_vars.size() != op->bindings.size()) fail("block '" + op->stage + "' binds a different number of iter vars");
    for (const IterVar& iv : op->iter_vars) {
      visit_expr(iv.min);
      visit_expr(iv.extent);
    }
    for (const Expr& b : op->bindings) {
      visit_expr(b);
      if (b && b->type != Index()) fail("binding of type " + b->type.str() + " in block '" + op->stage + "'");
    }
    for (const IterVar& iv : op->iter_vars) bind(iv.var);
    if (op->predicate) {
      visit_expr(op->predicate);
      if (op->predicate->type != Bool()) fail("predicate of type " + op->predicate->type.str() + " in block '" + op->stage + "'");
    }
    visit_stmt(op->init);
    visit_stmt(op->body);
    for (const IterVar& iv : op->iter_vars) unbind(iv.var);
  }
  void visit(const Allocate* op) override {
    check_shape(op->buffer);
    bool inserted = buffers_.insert(op->buffer.get()).second;
    if (!inserted) fail("buffer '" + op->buffer->name + "' is allocated again inside its own scope");
    visit_stmt(op->body);
    if (inserted) buffers_.erase(op->buffer.get());
  }
  void visit(const IfThenElse* op) override {
    if (op->cond && op->cond->type != Bool()) fail("if condition of type " + op->cond->type.str());
    IRVisitor::visit(op);
  }
  void visit(const LetStmt* op) override {
    visit_expr(op->value);
    if (op->value && op->var->type != op->value->type)
      fail("let variable '" + op->var->name + "' of type " + op->var->type.str() + " bound to a " +
           op->value->type.str());
    bind(op->var);
    visit_stmt(op->body);
    unbind(op->var);
  }

 private:
  const VerifyOptions& options_;
  std::unordered_map<const Variable*, int> bound_;
  std::unordered_set<const BufferNode*> buffers_;
  std::vector<Stmt> context_;
  std::optional<std::string> problem_;
};

}  // namespace

std::optional<std::string> verify(const LoweredFunc& f, const VerifyOptions& options) {
  return Verifier(options).run(f);
}

}  // namespace texc
