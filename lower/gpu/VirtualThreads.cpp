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
Stmt strip_local_allocations(const Stmt& s, std::vector<Buffer>* locals, std::vector<Buffer>* shared = nullptr) {
  if (!s) return s;
  if (const Allocate* a = s->as<Allocate>()) {
    Stmt body = strip_local_allocations(a->body, locals, shared);
    if (a->buffer->scope == MemScope::Local) {
      locals->push_back(a->buffer);
      return body;
    }
    if (shared && a->buffer->scope == MemScope::Shared) {
      shared->push_back(a->buffer);
      return body;
    }
    return Allocate::make(a->buffer, body);
  }
  if (const Seq* q = s->as<Seq>()) {
    std::vector<Stmt> out;
    for (const Stmt& x : q->stmts) out.push_back(strip_local_allocations(x, locals, shared));
    return Seq::make(out);
  }
  if (const For* f = s->as<For>()) return f->with_body(strip_local_allocations(f->body, locals, shared));
  if (const IfThenElse* i = s->as<IfThenElse>())
    return IfThenElse::make(i->cond, strip_local_allocations(i->then_case, locals, shared),
                            strip_local_allocations(i->else_case, locals, shared));
  if (const LetStmt* l = s->as<LetStmt>())
    return LetStmt::make(l->var, l->value, strip_local_allocations(l->body, locals, shared));
  if (const AttrStmt* a = s->as<AttrStmt>()) return a->with_body(strip_local_allocations(a->body, locals, shared));
  return s;
}

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

class Expander {
 public:
  explicit Expander(bool all_threads) : all_threads_(all_threads) {}

  Stmt expand(const Stmt& s) {
    if (!s) return s;
    if (const For* f = s->as<For>()) {
      Stmt body = expand(f->body);
      const bool thread = f->for_kind == ForKind::ThreadBound &&
                          (f->thread_tag == "vthread" || (all_threads_ && thread_level(f->thread_tag) == ThreadLevel::Thread));
      if (thread) return expand_loop(f, body);
      return f->with_body(body);
    }
    if (const Seq* q = s->as<Seq>()) {
      std::vector<Stmt> out;
      for (const Stmt& x : q->stmts) out.push_back(expand(x));
      return Seq::make(out);
    }
    if (const IfThenElse* i = s->as<IfThenElse>()) return IfThenElse::make(i->cond, expand(i->then_case), expand(i->else_case));
    if (const Allocate* a = s->as<Allocate>()) return Allocate::make(a->buffer, expand(a->body));
    if (const LetStmt* l = s->as<LetStmt>()) return LetStmt::make(l->var, l->value, expand(l->body));
    if (const AttrStmt* a = s->as<AttrStmt>()) return a->with_body(expand(a->body));
    return s;
  }

 private:
  Stmt expand_loop(const For* f, const Stmt& body) {
    std::vector<Buffer> locals, shared;
    Stmt stripped = strip_local_allocations(body, &locals, all_threads_ ? &shared : nullptr);
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
    Stmt out = fission(indexed, f);
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

  // s with every barrier-free part run for each virtual thread in turn, the barriers between.
  Stmt fission(const Stmt& s, const For* vt) {
    if (!contains_thread_barrier(s)) return loop_over(s, vt);
    if (is_thread_barrier(s)) return s;
    if (const Seq* q = s->as<Seq>()) {
      std::vector<Stmt> out, run;
      auto flush = [&] {
        if (!run.empty()) out.push_back(loop_over(Seq::make(run), vt));
        run.clear();
      };
      for (const Stmt& x : q->stmts) {
        if (!contains_thread_barrier(x)) {
          run.push_back(x);
          continue;
        }
        flush();
        out.push_back(fission(x, vt));
      }
      flush();
      return Seq::make(out);
    }
    if (const For* f = s->as<For>()) {
      if (uses_var(f->min, vt->var.get()) || uses_var(f->extent, vt->var.get())) fail(vt);
      return f->with_body(fission(f->body, vt));
    }
    if (const IfThenElse* i = s->as<IfThenElse>()) {
      if (uses_var(i->cond, vt->var.get())) fail(vt);
      return IfThenElse::make(i->cond, fission(i->then_case, vt), i->else_case ? fission(i->else_case, vt) : nullptr);
    }
    if (const Allocate* a = s->as<Allocate>()) return Allocate::make(a->buffer, fission(a->body, vt));
    if (const AttrStmt* a = s->as<AttrStmt>()) return a->with_body(fission(a->body, vt));
    fail(vt);  // a LetStmt of the virtual thread around a barrier
  }

  [[noreturn]] void fail(const For* vt) {
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
Stmt merge_thread_loops(const Stmt& s) {
  if (!s) return s;
  if (!has_block_loop(s)) return one_thread_program(s);
  if (const For* f = s->as<For>()) return f->with_body(merge_thread_loops(f->body));
  if (const Seq* q = s->as<Seq>()) {
    std::vector<Stmt> out;
    for (const Stmt& x : q->stmts) out.push_back(merge_thread_loops(x));
    return Seq::make(out);
  }
  if (const IfThenElse* i = s->as<IfThenElse>())
    return IfThenElse::make(i->cond, merge_thread_loops(i->then_case), merge_thread_loops(i->else_case));
  if (const Allocate* a = s->as<Allocate>()) return Allocate::make(a->buffer, merge_thread_loops(a->body));
  if (const LetStmt* l = s->as<LetStmt>()) return LetStmt::make(l->var, l->value, merge_thread_loops(l->body));
  if (const AttrStmt* a = s->as<AttrStmt>()) return a->with_body(merge_thread_loops(a->body));
  return s;
}

}  // namespace

Stmt expand_virtual_threads(const Stmt& body) { return Expander(false).expand(body); }

Stmt phase_threads(const Stmt& body) {
  return Expander(true).expand(exchange_shuffles(merge_thread_loops(body)));  // shuffles: lower/gpu/ShuffleExchange.h
}

}  // namespace texc
