#include "lower/gpu/InsertBarriers.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/gpu/Barriers.h"

namespace texc {

namespace {

struct Access {
  const BufferNode* buffer;
  bool write;
  std::string index;  // thread variables replaced by their tags
  bool own_loop;      // the index uses a loop variable of the accessing statement itself
};

using Accesses = std::vector<Access>;

bool conflict(const Access& a, const Access& b) {
  if (a.buffer != b.buffer || (!a.write && !b.write)) return false;
  return !(a.index == b.index && !a.own_loop && !b.own_loop);
}

bool conflicts(const Accesses& pending, const Accesses& next) {
  for (const Access& a : pending)
    for (const Access& b : next)
      if (conflict(a, b)) return true;
  return false;
}


// The body with barriers inserted. pending_: the accesses since the last barrier; under a
// thread-dependent condition (divergent_) no barrier may be emitted.
class BarrierInserter : public IRMutator {
 public:
  Stmt run(const Stmt& body) {
    collect_shared(body);
    return mutate_stmt(body);
  }

 protected:
  using IRMutator::mutate;

  Stmt mutate(const Seq* q, const Stmt&) override {
    std::vector<Stmt> out;
    for (const Stmt& x : q->stmts) {
      Accesses here = summarize(x);
      if (conflicts(pending_, here)) {
        if (divergent_) fail(pending_, here);
        out.push_back(thread_barrier());
        pending_.clear();
      }
      out.push_back(mutate_stmt(x));
    }
    return Seq::make(out);
  }

  Stmt mutate(const For* f, const Stmt& self) override {
    if (f->for_kind == ForKind::ThreadBound) {
      thread_names_[f->var.get()] = Variable::make(f->thread_tag, f->var->type);
      return IRMutator::mutate(f, self);
    }
    const bool was_divergent = divergent_;
    divergent_ = divergent_ || thread_dependent(f->min) || thread_dependent(f->extent);
    Stmt body = mutate_stmt(f->body);
    int64_t extent = 0;
    bool repeats = !is_const_int(f->extent, &extent) || extent > 1;
    // The next iteration's first phase against what this one left pending.
    if (repeats && conflicts(pending_, head_accesses(body))) {
      if (divergent_) fail(pending_, head_accesses(body));
      body = Seq::make({body, thread_barrier()});
      pending_.clear();
    }
    divergent_ = was_divergent;
    return f->with_body(body);
  }

  Stmt mutate(const IfThenElse* i, const Stmt&) override {
    const bool was_divergent = divergent_;
    divergent_ = divergent_ || thread_dependent(i->cond);
    const Accesses before = pending_;
    Stmt t = mutate_stmt(i->then_case);
    Accesses then_pending = pending_;
    pending_ = before;
    Stmt e = mutate_stmt(i->else_case);
    then_pending.insert(then_pending.end(), pending_.begin(), pending_.end());
    pending_ = std::move(then_pending);
    divergent_ = was_divergent;
    return IfThenElse::make(i->cond, t, e);
  }

  // The leaves (a store, an evaluate that is not a barrier): a conflict with one is found by the
  // sequence holding it; one directly under a loop or if is ordered here.
  Stmt mutate(const Store*, const Stmt& self) override { return leaf(self); }
  Stmt mutate(const Evaluate*, const Stmt& self) override {
    if (!is_thread_barrier(self)) return leaf(self);
    pending_.clear();
    return self;
  }

 private:
  Stmt leaf(const Stmt& s) {
    Accesses here = summarize(s);
    if (conflicts(pending_, here)) {
      if (divergent_) fail(pending_, here);
      pending_.assign(here.begin(), here.end());
      return Seq::make({thread_barrier(), s});
    }
    pending_.insert(pending_.end(), here.begin(), here.end());
    return s;
  }

  void collect_shared(const Stmt& s) {
    bool one_block = true;
    std::set<const BufferNode*> stored;
    for_each_stmt(s, [&](const Stmt& n) {
      if (const Allocate* a = n->as<Allocate>(); a && a->buffer->scope != MemScope::Local) shared_.insert(a->buffer.get());
      if (const For* f = n->as<For>(); f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Block)
        one_block = false;
      if (const Store* st = n->as<Store>(); st && st->buffer->scope != MemScope::Local) stored.insert(st->buffer.get());
    });
    // In a kernel of one block (the default schedule of several stages: one phase per stage), the
    // threads also communicate through the global buffers the function writes (an output a later
    // stage reads); in a grid of blocks no barrier could order that, and cuda-interp reports it.
    if (one_block) shared_.insert(stored.begin(), stored.end());
  }

  // The index of an access, thread variables spelled by their tags (two nests bound to the same
  // tag index the same thread).
  std::string index_key(const std::vector<Expr>& indices) {
    std::string key;
    for (const Expr& i : indices) key += to_string(substitute(i, thread_names_)) + ",";
    return key;
  }

  // Every access of a shared buffer in s (barriers inside s ignored).
  Accesses summarize(const Stmt& s) {
    Accesses out;
    std::set<const Variable*> own;
    for_each_stmt(s, [&](const Stmt& n) {
      // A vectorized loop is one vector access of the thread (its lanes are the thread's span, as
      // a scalar index is its element): not a loop of its own.
      if (const For* f = n->as<For>(); f && f->for_kind != ForKind::ThreadBound && f->for_kind != ForKind::Vectorized)
        own.insert(f->var.get());
      if (const LetStmt* l = n->as<LetStmt>()) own.insert(l->var.get());
    });
    auto uses_own = [&](const std::vector<Expr>& idx) {
      for (const Expr& i : idx)
        for (const Variable* v : own)
          if (uses_var(i, v)) return true;
      return false;
    };
    for_each_stmt(s, [&](const Stmt& n) {
      if (const For* f = n->as<For>(); f && f->for_kind == ForKind::ThreadBound)
        thread_names_[f->var.get()] = Variable::make(f->thread_tag, f->var->type);
      if (const Store* st = n->as<Store>(); st && shared_.count(st->buffer.get()))
        out.push_back({st->buffer.get(), true, index_key(st->indices), uses_own(st->indices)});
    });
    for_each_expr(s, [&](const Expr& e) {
      if (const Load* l = e->as<Load>(); l && shared_.count(l->buffer.get()))
        out.push_back({l->buffer.get(), false, index_key(l->indices), uses_own(l->indices)});
    });
    return out;
  }

  bool thread_dependent(const Expr& e) {
    bool dep = false;
    for (const auto& [v, tag] : thread_names_)
      if (uses_var(e, v)) dep = true;
    for_each_expr(e, [&](const Expr& x) {
      if (x->as<Load>()) dep = true;
    });
    return dep;
  }

  // The accesses of s before its first barrier (conservatively, all of a statement that holds one).
  Accesses head_accesses(const Stmt& s) {
    if (const Seq* q = s->as<Seq>()) {
      Accesses out;
      for (const Stmt& x : q->stmts) {
        if (is_thread_barrier(x)) break;
        Accesses here = summarize(x);
        out.insert(out.end(), here.begin(), here.end());
      }
      return out;
    }
    return summarize(s);
  }

  [[noreturn]] void fail(const Accesses& pending, const Accesses& next) {
    std::string name;
    for (const Access& a : pending)
      for (const Access& b : next)
        if (name.empty() && conflict(a, b)) name = a.buffer->name;
    throw_error(DiagId::GpuBarrierDivergent, SourceLoc{}, name);
  }

  std::set<const BufferNode*> shared_;
  VarMap thread_names_;
  Accesses pending_;
  bool divergent_ = false;
};

}  // namespace

Stmt insert_barriers(const Stmt& body) { return BarrierInserter().run(body); }

}  // namespace texc
