#include "lower/gpu/VirtualThreads.h"

#include <map>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Substitute.h"

namespace texc {

namespace {

bool is_barrier(const Stmt& s) {
  const Evaluate* e = s ? s->as<Evaluate>() : nullptr;
  return e && is_intrinsic_call(e->value->as<Call>(), Intrinsic::ThreadBarrier);
}

bool has_barrier(const Stmt& s) {
  bool found = false;
  if (s)
    for_each_stmt(s, [&](const Stmt& n) { found = found || is_barrier(n); });
  return found;
}

// Removes the local Allocates under a vthread loop, collecting their buffers.
Stmt strip_local_allocations(const Stmt& s, std::vector<Buffer>* locals) {
  if (!s) return s;
  if (const Allocate* a = s->as<Allocate>()) {
    Stmt body = strip_local_allocations(a->body, locals);
    if (a->buffer->scope != MemScope::Local) return Allocate::make(a->buffer, body);
    locals->push_back(a->buffer);
    return body;
  }
  if (const Seq* q = s->as<Seq>()) {
    std::vector<Stmt> out;
    for (const Stmt& x : q->stmts) out.push_back(strip_local_allocations(x, locals));
    return Seq::make(out);
  }
  if (const For* f = s->as<For>()) return f->with_body(strip_local_allocations(f->body, locals));
  if (const IfThenElse* i = s->as<IfThenElse>())
    return IfThenElse::make(i->cond, strip_local_allocations(i->then_case, locals),
                            strip_local_allocations(i->else_case, locals));
  if (const LetStmt* l = s->as<LetStmt>()) return LetStmt::make(l->var, l->value, strip_local_allocations(l->body, locals));
  if (const AttrStmt* a = s->as<AttrStmt>()) return a->with_body(strip_local_allocations(a->body, locals));
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
  Stmt expand(const Stmt& s) {
    if (!s) return s;
    if (const For* f = s->as<For>()) {
      Stmt body = expand(f->body);
      if (f->for_kind == ForKind::ThreadBound && f->thread_tag == "vthread") return expand_loop(f, body);
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
    std::vector<Buffer> locals;
    Stmt stripped = strip_local_allocations(body, &locals);
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
    return out;
  }

  static Expr simplify_mul(const Expr& a, const Expr& b) {
    int64_t x = 0, y = 0;
    if (is_const_int(a, &x) && is_const_int(b, &y)) return make_int(x * y);
    return a * b;
  }

  // One serial loop over the virtual threads around s, its variable fresh.
  Stmt loop_over(const Stmt& s, const For* vt) {
    Var v = Variable::make(vt->var->name + (segments_ ? "." + std::to_string(segments_) : std::string()), vt->var->type);
    ++segments_;
    return For::make(v, vt->min, vt->extent, ForKind::Serial, substitute(s, VarMap{{vt->var.get(), Expr(v)}}));
  }

  // s with every barrier-free part run for each virtual thread in turn, the barriers between.
  Stmt fission(const Stmt& s, const For* vt) {
    if (!has_barrier(s)) return loop_over(s, vt);
    if (is_barrier(s)) return s;
    if (const Seq* q = s->as<Seq>()) {
      std::vector<Stmt> out, run;
      auto flush = [&] {
        if (!run.empty()) out.push_back(loop_over(Seq::make(run), vt));
        run.clear();
      };
      for (const Stmt& x : q->stmts) {
        if (!has_barrier(x)) {
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

  [[noreturn]] static void fail(const For* vt) {
    throw_error(DiagId::GpuVthreadBarrier, SourceLoc{}, vt->var->name);
  }

  int segments_ = 0;
};

}  // namespace

Stmt expand_virtual_threads(const Stmt& body) { return Expander().expand(body); }

}  // namespace texc
