#include "ir/StructuralEqual.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

namespace texc {

namespace {

class Comparer {
 public:
  bool expr(const Expr& a, const Expr& b) {
    if (a == b && !a) return true;
    if (!a || !b) return false;
    if (a->kind != b->kind || a->type != b->type) return false;
    switch (a->kind) {
      case ExprKind::IntImm: return a->as<IntImm>()->value == b->as<IntImm>()->value;
      case ExprKind::FloatImm: {
        double x = a->as<FloatImm>()->value, y = b->as<FloatImm>()->value;
        return std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y));
      }
      case ExprKind::Variable: return var(a->as<Variable>(), b->as<Variable>());
      case ExprKind::Binary: {
        auto *x = a->as<Binary>(), *y = b->as<Binary>();
        return x->op == y->op && expr(x->a, y->a) && expr(x->b, y->b);
      }
      case ExprKind::Not: return expr(a->as<Not>()->a, b->as<Not>()->a);
      case ExprKind::Select: {
        auto *x = a->as<Select>(), *y = b->as<Select>();
        return expr(x->cond, y->cond) && expr(x->true_value, y->true_value) && expr(x->false_value, y->false_value);
      }
      case ExprKind::Cast: return expr(a->as<Cast>()->value, b->as<Cast>()->value);
      case ExprKind::Call: {
        auto *x = a->as<Call>(), *y = b->as<Call>();
        return x->name == y->name && x->call_kind == y->call_kind && exprs(x->args, y->args);
      }
      case ExprKind::Load: {
        auto *x = a->as<Load>(), *y = b->as<Load>();
        return buffer(x->buffer, y->buffer) && exprs(x->indices, y->indices);
      }
      case ExprKind::Ramp: {
        auto *x = a->as<Ramp>(), *y = b->as<Ramp>();
        return x->lanes == y->lanes && expr(x->base, y->base) && expr(x->stride, y->stride);
      }
      case ExprKind::Broadcast: {
        auto *x = a->as<Broadcast>(), *y = b->as<Broadcast>();
        return x->lanes == y->lanes && expr(x->value, y->value);
      }
      case ExprKind::Let: {
        auto *x = a->as<Let>(), *y = b->as<Let>();
        if (!expr(x->value, y->value)) return false;
        bind(x->var.get(), y->var.get());
        return expr(x->body, y->body);
      }
      case ExprKind::Reduce: {
        auto *x = a->as<Reduce>(), *y = b->as<Reduce>();
        if (x->reduce_kind != y->reduce_kind || !iter_vars(x->axes, y->axes, false)) return false;
        return expr(x->source, y->source);
      }
    }
    return false;
  }

  bool stmt(const Stmt& a, const Stmt& b) {
    std::vector<Stmt> xs, ys;
    flatten(a, xs);
    flatten(b, ys);
    if (xs.size() != ys.size()) return false;
    for (size_t i = 0; i < xs.size(); ++i)
      if (!single(xs[i], ys[i])) return false;
    return true;
  }

  bool func(const LoweredFunc& a, const LoweredFunc& b) {
    if (a.name != b.name || a.args.size() != b.args.size() || a.arg_dims != b.arg_dims) return false;
    for (size_t i = 0; i < a.args.size(); ++i) {
      if (a.args[i]->role != b.args[i]->role || !declare_buffer(a.args[i], b.args[i])) return false;
    }
    return stmt(a.body, b.body);
  }

 private:
  bool exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!expr(a[i], b[i])) return false;
    return true;
  }

  void bind(const Variable* a, const Variable* b) {
    vars_[a] = b;
    rvars_[b] = a;
  }

  bool var(const Variable* a, const Variable* b) {
    auto it = vars_.find(a);
    auto rt = rvars_.find(b);
    if (it != vars_.end() || rt != rvars_.end())
      return it != vars_.end() && rt != rvars_.end() && it->second == b && rt->second == a;
    // Free variables: the same object, or the same name and type.
    if (a != b && (a->name != b->name || a->type != b->type)) return false;
    bind(a, b);
    return true;
  }

  // is_reduce is compared for block iter vars; a Reduce's axes are all reduction axes whatever the flag.
  bool iter_vars(const std::vector<IterVar>& a, const std::vector<IterVar>& b, bool compare_reduce_flags) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (compare_reduce_flags && a[i].is_reduce != b[i].is_reduce) return false;
      if (a[i].var->type != b[i].var->type) return false;
      if (!expr(a[i].min, b[i].min) || !expr(a[i].extent, b[i].extent)) return false;
    }
    for (size_t i = 0; i < a.size(); ++i) bind(a[i].var.get(), b[i].var.get());
    return true;
  }

  bool same_declaration(const Buffer& a, const Buffer& b) {
    return a->name == b->name && a->dtype == b->dtype && a->ndim() == b->ndim() && a->scope == b->scope;
  }

  // A buffer at its declaration (argument or allocation): also compares shapes.
  bool declare_buffer(const Buffer& a, const Buffer& b) {
    if (!same_declaration(a, b) || !exprs(a->shape, b->shape)) return false;
    buffers_[a.get()] = b.get();
    rbuffers_[b.get()] = a.get();
    return true;
  }

  bool buffer(const Buffer& a, const Buffer& b) {
    auto it = buffers_.find(a.get());
    auto rt = rbuffers_.find(b.get());
    if (it != buffers_.end() || rt != rbuffers_.end())
      return it != buffers_.end() && rt != rbuffers_.end() && it->second == b.get() && rt->second == a.get();
    if (!same_declaration(a, b)) return false;
    buffers_[a.get()] = b.get();
    rbuffers_[b.get()] = a.get();
    return true;
  }

  static void flatten(const Stmt& s, std::vector<Stmt>& out) {
    if (!s) return;
    if (const Seq* q = s->as<Seq>()) {
      for (const Stmt& x : q->stmts) flatten(x, out);
      return;
    }
    out.push_back(s);
  }

  bool single(const Stmt& a, const Stmt& b) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case StmtKind::Store: {
        auto *x = a->as<Store>(), *y = b->as<Store>();
        return buffer(x->buffer, y->buffer) && exprs(x->indices, y->indices) && expr(x->value, y->value);
      }
      case StmtKind::For: {
        auto *x = a->as<For>(), *y = b->as<For>();
        if (x->for_kind != y->for_kind || x->thread_tag != y->thread_tag || x->var->type != y->var->type) return false;
        if (!expr(x->min, y->min) || !expr(x->extent, y->extent)) return false;
        bind(x->var.get(), y->var.get());
        return stmt(x->body, y->body);
      }
      case StmtKind::Block: {
        auto *x = a->as<Block>(), *y = b->as<Block>();
        if (x->stage != y->stage || !exprs(x->bindings, y->bindings)) return false;
        if (!iter_vars(x->iter_vars, y->iter_vars, true)) return false;
        if (!expr(x->predicate, y->predicate)) return false;
        if ((x->init == nullptr) != (y->init == nullptr) || (x->init && !stmt(x->init, y->init))) return false;
        return stmt(x->body, y->body);
      }
      case StmtKind::Allocate: {
        auto *x = a->as<Allocate>(), *y = b->as<Allocate>();
        return x->buffer->role == y->buffer->role && declare_buffer(x->buffer, y->buffer) && stmt(x->body, y->body);
      }
      case StmtKind::IfThenElse: {
        auto *x = a->as<IfThenElse>(), *y = b->as<IfThenElse>();
        return expr(x->cond, y->cond) && stmt(x->then_case, y->then_case) && stmt(x->else_case, y->else_case);
      }
      case StmtKind::LetStmt: {
        auto *x = a->as<LetStmt>(), *y = b->as<LetStmt>();
        if (!expr(x->value, y->value)) return false;
        bind(x->var.get(), y->var.get());
        return stmt(x->body, y->body);
      }
      case StmtKind::Evaluate: return expr(a->as<Evaluate>()->value, b->as<Evaluate>()->value);
      case StmtKind::AttrStmt: {
        auto *x = a->as<AttrStmt>(), *y = b->as<AttrStmt>();
        return x->key == y->key && x->name == y->name && expr(x->value, y->value) && stmt(x->body, y->body);
      }
      case StmtKind::Seq: return stmt(a, b);
    }
    return false;
  }

  std::unordered_map<const Variable*, const Variable*> vars_, rvars_;
  std::unordered_map<const BufferNode*, const BufferNode*> buffers_, rbuffers_;
};

}  // namespace

bool structurally_equal(const Expr& a, const Expr& b) { return Comparer().expr(a, b); }
bool structurally_equal(const Stmt& a, const Stmt& b) { return Comparer().stmt(a, b); }
bool structurally_equal(const LoweredFunc& a, const LoweredFunc& b) { return Comparer().func(a, b); }

}  // namespace texc
