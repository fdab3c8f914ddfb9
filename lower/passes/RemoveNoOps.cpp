#include "lower/passes/RemoveNoOps.h"

#include <unordered_set>

#include "ir/ExprOrder.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/Intrinsics.h"
#include "ir/IRVisitor.h"

namespace texc {

namespace {

bool does_nothing(const Stmt& s) {
  const Seq* q = s ? s->as<Seq>() : nullptr;
  return !s || (q && q->stmts.empty());
}

Stmt nothing() { return Seq::make({}); }

bool has_side_effects(const Expr& e) {
  bool found = false;
  if (e)
    for_each_expr(e, [&](const Expr& x) {
      if (const Call* c = x->as<Call>(); c && c->call_kind == CallKind::Extern) found = true;
      if (const Call* c = x->as<Call>(); c && is_intrinsic_call(c, Intrinsic::Prefetch)) found = true;  // asked for
      if (const Call* c = x->as<Call>(); c && is_intrinsic_call(c, Intrinsic::AtomicAdd)) found = true;  // a store
      if (const Call* c = x->as<Call>(); c && c->call_kind == CallKind::Intrinsic && intrinsic_of(c) &&
                                         intrinsic_effect(*intrinsic_of(c)) == IntrinsicEffect::WarpUpdate)
        found = true;  // a tensor-core update
    });
  return found;
}

// Removes the allocations of buffers nobody reads, with the stores to them.
class DeadBufferRemover : public IRMutator {
 public:
  explicit DeadBufferRemover(std::unordered_set<const BufferNode*> dead) : dead_(std::move(dead)) {}

 protected:
  Stmt mutate(const Allocate* op, const Stmt& self) override {
    if (dead_.count(op->buffer.get())) return mutate_stmt(op->body);
    return IRMutator::mutate(op, self);
  }
  Stmt mutate(const Store* op, const Stmt& self) override {
    if (!dead_.count(op->buffer.get())) return IRMutator::mutate(op, self);
    return has_side_effects(op->value) ? Evaluate::make(op->value) : nothing();
  }

 private:
  std::unordered_set<const BufferNode*> dead_;
};

class NoOpRemover : public IRMutator {
 protected:
  Stmt mutate(const Store* op, const Stmt& self) override {
    if (const Load* l = op->value->as<Load>(); l && l->buffer == op->buffer) {
      bool same = true;
      for (size_t d = 0; d < op->indices.size(); ++d) same = same && same_expr(l->indices[d], op->indices[d]);
      if (same) return nothing();
    }
    return self;
  }
  Stmt mutate(const For* op, const Stmt& self) override {
    int64_t extent;
    if (is_const_int(op->extent, &extent) && extent <= 0) return nothing();
    Stmt body = mutate_stmt(op->body);
    if (does_nothing(body)) return nothing();
    return body == op->body ? self : op->with_body(body);
  }
  Stmt mutate(const IfThenElse* op, const Stmt& self) override {
    Stmt then_case = mutate_stmt(op->then_case), else_case = mutate_stmt(op->else_case);
    if (does_nothing(else_case)) else_case = nullptr;
    if (does_nothing(then_case)) {
      if (!else_case) return has_side_effects(op->cond) ? Evaluate::make(op->cond) : nothing();
      return IfThenElse::make(Not::make(op->cond), else_case);
    }
    if (then_case == op->then_case && else_case == op->else_case) return self;
    return IfThenElse::make(op->cond, then_case, else_case);
  }
  Stmt mutate(const LetStmt* op, const Stmt& self) override {
    Stmt body = mutate_stmt(op->body);
    if (does_nothing(body)) return has_side_effects(op->value) ? Evaluate::make(op->value) : nothing();
    return body == op->body ? self : LetStmt::make(op->var, op->value, body);
  }
  Stmt mutate(const Allocate* op, const Stmt& self) override {
    Stmt body = mutate_stmt(op->body);
    if (does_nothing(body)) return nothing();
    return body == op->body ? self : Allocate::make(op->buffer, body);
  }
  Stmt mutate(const Evaluate* op, const Stmt& self) override {
    return has_side_effects(op->value) ? self : nothing();
  }
  // An attribute says something about its body; with nothing left to say it about, it goes too.
  Stmt mutate(const AttrStmt* op, const Stmt& self) override {
    Stmt body = mutate_stmt(op->body);
    if (does_nothing(body)) return nothing();
    return body == op->body ? self : op->with_body(body);
  }
  Stmt mutate(const Seq* op, const Stmt& self) override {
    std::vector<Stmt> kept;
    bool changed = false;
    for (const Stmt& s : op->stmts) {
      Stmt m = mutate_stmt(s);
      if (m != s) changed = true;
      if (!does_nothing(m)) kept.push_back(m);
    }
    return changed ? Seq::make(std::move(kept)) : self;
  }
};

}  // namespace

Stmt remove_no_ops(const Stmt& s) {
  std::unordered_set<const BufferNode*> allocated, loaded;
  for_each_stmt(s, [&](const Stmt& x) {
    if (const Allocate* a = x->as<Allocate>()) allocated.insert(a->buffer.get());
  });
  for_each_expr(s, [&](const Expr& e) {
    if (const Load* l = e->as<Load>()) loaded.insert(l->buffer.get());
  });
  std::unordered_set<const BufferNode*> dead;
  for (const BufferNode* b : allocated)
    if (!loaded.count(b)) dead.insert(b);
  Stmt out = dead.empty() ? s : DeadBufferRemover(std::move(dead)).mutate_stmt(s);
  out = NoOpRemover().mutate_stmt(out);
  return out ? out : nothing();
}

}  // namespace texc
