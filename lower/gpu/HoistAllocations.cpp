#include "lower/gpu/HoistAllocations.h"

#include <vector>

#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "ir/Target.h"

namespace texc {

namespace {

class Hoister {
 public:
  // s without the Allocates that move; those are appended to *shared / *global.
  Stmt hoist(const Stmt& s, bool in_thread, bool in_bound) {
    if (!s) return s;
    if (const Allocate* a = s->as<Allocate>()) {
      Stmt body = hoist(a->body, in_thread, in_bound);
      if (a->buffer->scope == MemScope::Shared && in_thread) {
        shared_.push_back(a->buffer);
        return body;
      }
      if (a->buffer->scope == MemScope::Global && in_bound) {
        global_.push_back(a->buffer);
        return body;
      }
      return Allocate::make(a->buffer, body);
    }
    if (const For* f = s->as<For>()) {
      if (f->for_kind != ForKind::ThreadBound) return f->with_body(hoist(f->body, in_thread, in_bound));
      const ThreadLevel level = thread_level(f->thread_tag);
      const bool thread = level == ThreadLevel::Thread || level == ThreadLevel::Virtual;
      const size_t first_shared = shared_.size();
      Stmt loop = f->with_body(hoist(f->body, in_thread || thread, true));
      if (thread && !in_thread) {  // the outermost thread loop: the block's shared buffers go here
        for (size_t i = shared_.size(); i > first_shared; --i) loop = Allocate::make(shared_[i - 1], loop);
        shared_.resize(first_shared);
      }
      return loop;
    }
    if (const Seq* q = s->as<Seq>()) {
      std::vector<Stmt> out;
      for (const Stmt& x : q->stmts) out.push_back(hoist(x, in_thread, in_bound));
      return Seq::make(out);
    }
    if (const IfThenElse* i = s->as<IfThenElse>())
      return IfThenElse::make(i->cond, hoist(i->then_case, in_thread, in_bound), hoist(i->else_case, in_thread, in_bound));
    if (const LetStmt* l = s->as<LetStmt>()) return LetStmt::make(l->var, l->value, hoist(l->body, in_thread, in_bound));
    if (const AttrStmt* a = s->as<AttrStmt>()) return a->with_body(hoist(a->body, in_thread, in_bound));
    return s;
  }

  Stmt wrap_globals(Stmt body) {
    for (size_t i = global_.size(); i > 0; --i) body = Allocate::make(global_[i - 1], body);
    return body;
  }

 private:
  std::vector<Buffer> shared_, global_;
};

}  // namespace

Stmt hoist_gpu_allocations(const Stmt& body) {
  Hoister h;
  Stmt out = h.wrap_globals(h.hoist(body, false, false));
  // A kernel of one block (no blockIdx loop: the stages of an op left in one block, ordered by
  // barriers) keeps its intermediates in the block's shared memory; a kernel cannot allocate
  // global memory.
  bool blocks = false;
  BufferMap to_shared;
  for_each_stmt(out, [&](const Stmt& n) {
    if (const For* f = n->as<For>(); f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Block)
      blocks = true;
    if (const Allocate* a = n->as<Allocate>(); a && a->buffer->scope == MemScope::Global) {
      const Buffer& b = a->buffer;
      to_shared[b.get()] = BufferNode::make(b->name, b->dtype, b->shape, MemScope::Shared, b->role);
    }
  });
  if (blocks || to_shared.empty()) return out;
  return substitute_buffers(out, to_shared);
}

}  // namespace texc
