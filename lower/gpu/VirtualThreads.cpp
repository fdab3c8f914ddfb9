#include "lower/gpu/VirtualThreads.h"

#include <algorithm>
#include <map>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/gpu/ShuffleExchange.h"
#include "lower/gpu/Barriers.h"

namespace texc {

namespace {

// Removes the local Allocates under a vthread loop, collecting their buffers.
// With `shared` set, the block's shared buffers are collected there too.
class LocalStripper : public IRMutator {
 public:
  LocalStripper(std::vector<Buffer>* locals, std::vector<Buffer>* shared) : locals_(locals), shared_(shared) {}

 protected:
  using IRMutator::mutate;
  Stmt mutate(const Allocate* a, const Stmt& self) override {
    Stmt body = mutate_stmt(a->body);
    if (a->buffer->scope == MemScope::Local) {
      locals_->push_back(a->buffer);
      return body;
    }
    if (shared_ && a->buffer->scope == MemScope::Shared) {
      shared_->push_back(a->buffer);
      return body;
    }
    return body == a->body ? self : Allocate::make(a->buffer, body);
  }

 private:
  std::vector<Buffer>* locals_;
  std::vector<Buffer>* shared_;
};

// Every access of a copied local buffer goes to the copy of virtual thread `v`.
class CopyIndexer : public IRMutator {
 public:
  CopyIndexer(std::map<const BufferNode*, Buffer> copies, Var v) : copies_(std::move(copies)), v_(std::move(v)) {}

 protected:
  std::vector<Expr> index(const Buffer& old, const std::vector<Expr>& indices) {
    if (old->ndim() == 1) return {Expr(v_) * old->shape[0] + indices[0]};
    std::vector<Expr> out = {Expr(v_)};
    out.insert(out.end(), indices.begin(), indices.end());
    return out;
  }
  Expr mutate(const Load* op, const Expr& self) override {
    Expr e = IRMutator::mutate(op, self);
    const Load* l = e->as<Load>();
    auto it = copies_.find(l->buffer.get());
    if (it == copies_.end()) return e;
    return Load::make(it->second, index(l->buffer, l->indices));
  }
  Stmt mutate(const Store* op, const Stmt& self) override {
    Stmt s = IRMutator::mutate(op, self);
    const Store* st = s->as<Store>();
    auto it = copies_.find(st->buffer.get());
    if (it == copies_.end()) return s;
    return Store::make(it->second, index(st->buffer, st->indices), st->value, st->stage);
  }

 private:
  std::map<const BufferNode*, Buffer> copies_;
  Var v_;
};

class Expander : public IRMutator {
 public:
  explicit Expander(bool all_threads) : all_threads_(all_threads) {}

 protected:
  using IRMutator::mutate;
  Stmt mutate(const For* f, const Stmt& self) override {
    const bool thread = f->for_kind == ForKind::ThreadBound &&
                        (f->thread_tag == "vthread" || (all_threads_ && thread_level(f->thread_tag) == ThreadLevel::Thread));
    if (!thread) return IRMutator::mutate(f, self);
    return expand_loop(f, mutate_stmt(f->body));
  }

 private:
  Stmt expand_loop(const For* f, const Stmt& body) {
    std::vector<Buffer> locals, shared;
    Stmt stripped = LocalStripper(&locals, all_threads_ ? &shared : nullptr).mutate_stmt(body);
    std::map<const BufferNode*, Buffer> copies;
    for (const Buffer& b : locals) {
      std::vector<Expr> shape;
      if (b->ndim() == 1) shape = {simplify_mul(f->extent, b->shape[0])};
      else {
        shape = {f->extent};
        shape.insert(shape.end(), b->shape.begin(), b->shape.end());
      }
      copies[b.get()] = BufferNode::make(b->name, b->dtype, shape, MemScope::Local, b->role);
    }
    Stmt indexed = copies.empty() ? stripped : CopyIndexer(copies, f->var).mutate_stmt(stripped);
    Stmt out = Fission(*this, f).mutate_stmt(indexed);
    for (size_t i = locals.size(); i > 0; --i) out = Allocate::make(copies[locals[i - 1].get()], out);
    for (size_t i = shared.size(); i > 0; --i) out = Allocate::make(shared[i - 1], out);
    return out;
  }

  static Expr simplify_mul(const Expr& a, const Expr& b) {
    int64_t x = 0, y = 0;
    if (is_const_int(a, &x) && is_const_int(b, &y)) return make_int(x * y);
    return a * b;
  }

  // One loop over the virtual threads around s, its variable fresh: unrolled for vthreads (as in
  // TVM, each virtual thread's copy of the local buffers is then indexed by a constant and stays
  // in registers); over the real threads of cuda-interp, a loop bound to their tag, which
  // cuda-interp's race detector reads as the thread index.
  Stmt loop_over(const Stmt& s, const For* vt) {
    Var v = Variable::make(vt->var->name + (segments_ ? "." + std::to_string(segments_) : std::string()), vt->var->type);
    ++segments_;
    Stmt body = substitute(s, VarMap{{vt->var.get(), Expr(v)}});
    if (vt->thread_tag == "vthread") return For::make(v, vt->min, vt->extent, ForKind::Unrolled, body);
    if (all_threads_) return For::make(v, vt->min, vt->extent, ForKind::ThreadBound, body, vt->thread_tag);
    return For::make(v, vt->min, vt->extent, ForKind::Serial, body);
  }

  // A statement with every barrier-free part run for each virtual thread `vt` in turn, the
  // barriers between.
  class Fission : public IRMutator {
   public:
    Fission(Expander& expander, const For* vt) : expander_(expander), vt_(vt) {}
    Stmt mutate_stmt(const Stmt& s) override {
      if (!s) return s;
      if (!contains_thread_barrier(s)) return expander_.loop_over(s, vt_);
      if (is_thread_barrier(s)) return s;
      return IRMutator::mutate_stmt(s);
    }

   protected:
    using IRMutator::mutate;
    Stmt mutate(const Seq* q, const Stmt&) override {
      std::vector<Stmt> out, run;
      auto flush = [&] {
        if (!run.empty()) out.push_back(expander_.loop_over(Seq::make(run), vt_));
        run.clear();
      };
      for (const Stmt& x : q->stmts) {
        if (!contains_thread_barrier(x)) {
          run.push_back(x);
          continue;
        }
        flush();
        out.push_back(mutate_stmt(x));
      }
      flush();
      return Seq::make(out);
    }
    Stmt mutate(const For* f, const Stmt& self) override {
      if (uses_var(f->min, vt_->var.get()) || uses_var(f->extent, vt_->var.get())) fail(vt_);
      return IRMutator::mutate(f, self);
    }
    Stmt mutate(const IfThenElse* i, const Stmt& self) override {
      if (uses_var(i->cond, vt_->var.get())) fail(vt_);
      return IRMutator::mutate(i, self);
    }
    // A let of the virtual thread around a barrier (a store or an evaluate holding a barrier is one).
    Stmt mutate(const LetStmt*, const Stmt&) override { fail(vt_); }
    Stmt mutate(const Block*, const Stmt&) override { fail(vt_); }

   private:
    Expander& expander_;
    const For* vt_;
  };

  [[noreturn]] static void fail(const For* vt) {
    if (vt->thread_tag != "vthread")
      throw_error(DiagId::GpuBarrierNotReached, SourceLoc{}, vt->thread_tag, vt->var->name);
    throw_error(DiagId::GpuVthreadBarrier, SourceLoc{}, vt->var->name);
  }

  bool all_threads_;
  int segments_ = 0;
};

bool has_block_loop(const Stmt& s) {
  bool found = false;
  for_each_stmt(s, [&](const Stmt& n) {
    if (const For* f = n->as<For>(); f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Block)
      found = true;
  });
  return found;
}

// Every thread of a block runs the block's whole body: its loops bound to threadIdx.* become the
// thread's index (guarded where a loop is shorter than the block), inside one loop per tag
// around the body.
Stmt one_thread_program(const Stmt& s) {
  std::map<std::string, int64_t> extents;
  for_each_stmt(s, [&](const Stmt& n) {
    const For* f = n->as<For>();
    int64_t e = 0;
    if (f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Thread &&
        is_const_int(f->extent, &e))
      extents[f->thread_tag] = std::max(extents[f->thread_tag], e);
  });
  if (extents.empty()) return s;
  std::map<std::string, Var> vars;
  for (const auto& [tag, e] : extents) vars[tag] = Variable::make(tag, Index());
  class Binder : public IRMutator {
   public:
    Binder(const std::map<std::string, Var>& v, const std::map<std::string, int64_t>& e) : vars_(v), extents_(e) {}

   protected:
    Stmt mutate(const For* op, const Stmt& self) override {
      if (op->for_kind != ForKind::ThreadBound || !vars_.count(op->thread_tag)) return IRMutator::mutate(op, self);
      const Var& v = vars_.at(op->thread_tag);
      Stmt body = mutate_stmt(substitute(op->body, VarMap{{op->var.get(), Expr(v)}}));
      int64_t e = 0;
      if (!is_const_int(op->extent, &e) || e < extents_.at(op->thread_tag)) body = IfThenElse::make(Expr(v) < op->extent, body);
      return body;
    }

   private:
    const std::map<std::string, Var>& vars_;
    const std::map<std::string, int64_t>& extents_;
  };
  Stmt body = Binder(vars, extents).mutate_stmt(s);
  for (const char* tag : {"threadIdx.x", "threadIdx.y", "threadIdx.z"})
    if (extents.count(tag)) body = For::make(vars[tag], make_int(0), make_int(extents[tag]), ForKind::ThreadBound, body, tag);
  return body;
}

// The block-level regions of a kernel (the bodies of the innermost block loops, or the kernel)
// each as one thread program.
class ThreadLoopMerger : public IRMutator {
 public:
  Stmt mutate_stmt(const Stmt& s) override {
    if (s && !has_block_loop(s)) return one_thread_program(s);
    return IRMutator::mutate_stmt(s);
  }
};

}  // namespace

Stmt expand_virtual_threads(const Stmt& body) { return Expander(false).mutate_stmt(body); }

Stmt phase_threads(const Stmt& body) {
  return Expander(true).mutate_stmt(exchange_shuffles(ThreadLoopMerger().mutate_stmt(body)));  // shuffles: lower/gpu/ShuffleExchange.h
}

}  // namespace texc
