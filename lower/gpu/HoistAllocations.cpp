#include "lower/gpu/HoistAllocations.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/StructuralEqual.h"
#include "ir/Substitute.h"
#include "ir/Target.h"

namespace texc {

namespace {

// The body without the Allocates that move; those are appended to shared_ / global_.
class Hoister : public IRMutator {
 public:
  Stmt wrap_globals(Stmt body) {
    for (size_t i = global_.size(); i > 0; --i) body = Allocate::make(global_[i - 1], body);
    return body;
  }

 protected:
  using IRMutator::mutate;
  Stmt mutate(const Allocate* a, const Stmt& self) override {
    Stmt body = mutate_stmt(a->body);
    if (a->buffer->scope == MemScope::Shared && in_thread_) {
      shared_.push_back(a->buffer);
      return body;
    }
    if (a->buffer->scope == MemScope::Global && in_bound_) {
      global_.push_back(a->buffer);
      return body;
    }
    return body == a->body ? self : Allocate::make(a->buffer, body);
  }

  Stmt mutate(const For* f, const Stmt& self) override {
    if (f->for_kind != ForKind::ThreadBound) return IRMutator::mutate(f, self);
    const ThreadLevel level = thread_level(f->thread_tag);
    const bool thread = level == ThreadLevel::Thread || level == ThreadLevel::Virtual;
    const size_t first_shared = shared_.size();
    const bool outer_thread = thread && !in_thread_;  // the outermost thread loop: the block's shared buffers go here
    const bool was_in_thread = in_thread_, was_in_bound = in_bound_;
    in_thread_ = in_thread_ || thread;
    in_bound_ = true;
    Stmt loop = IRMutator::mutate(f, self);
    in_thread_ = was_in_thread;
    in_bound_ = was_in_bound;
    if (outer_thread) {
      for (size_t i = shared_.size(); i > first_shared; --i) loop = Allocate::make(shared_[i - 1], loop);
      shared_.resize(first_shared);
    }
    return loop;
  }

 private:
  std::vector<Buffer> shared_, global_;
  bool in_thread_ = false;  // inside a loop bound to threadIdx.* or vthread
  bool in_bound_ = false;   // inside any bound loop
};

// s without the Allocate nodes of `buffers` (their bodies kept).
Stmt drop_allocates(const Stmt& s, const std::set<const BufferNode*>& buffers) {
  return mutate_with<Allocate>(s, [&](auto& m, const Allocate* op, const Stmt& self) {
    return buffers.count(op->buffer.get()) ? m.mutate_stmt(op->body) : m.descend(op, self);
  });
}

// The accesses of one buffer, each with the loops around it (outermost first).
struct BufferUse {
  Expr index;
  std::vector<const For*> loops;
};

class CollectUses : public IRMutator {
 public:
  explicit CollectUses(const BufferNode* buffer) : buffer_(buffer) {}
  std::vector<BufferUse> uses;
  bool flat = true;  // every access has one scalar index

 protected:
  using IRMutator::mutate;
  Stmt mutate(const For* op, const Stmt& self) override {
    loops_.push_back(op);
    mutate_stmt(op->body);
    loops_.pop_back();
    return self;
  }
  Expr mutate(const Load* op, const Expr& self) override {
    if (op->buffer.get() == buffer_) note(op->indices);
    return IRMutator::mutate(op, self);
  }
  Stmt mutate(const Store* op, const Stmt& self) override {
    if (op->buffer.get() == buffer_) note(op->indices);
    return IRMutator::mutate(op, self);
  }

 private:
  void note(const std::vector<Expr>& indices) {
    if (indices.size() != 1 || !indices[0]->type.is_scalar()) {
      flat = false;
      return;
    }
    uses.push_back({indices[0], loops_});
  }
  const BufferNode* buffer_;
  std::vector<const For*> loops_;
};

// The part of a buffer one block touches: [base, base + extent), base an expression of one
// variable per blockIdx tag (`tags`).
struct BlockSpan {
  Expr base;
  int64_t extent = 0;
};

// The span of `uses` per block, or nullopt where it is not a constant extent at the same offset
// from one expression of the block indices in every access.
std::optional<BlockSpan> block_span(const std::vector<BufferUse>& uses, std::map<std::string, Var>& tags) {
  std::optional<Expr> base;
  int64_t lo = 0, hi = 0;
  for (const BufferUse& use : uses) {
    VarMap to_tag;
    for (const For* f : use.loops) {
      if (f->for_kind != ForKind::ThreadBound || thread_level(f->thread_tag) != ThreadLevel::Block) continue;
      Var& tag = tags[f->thread_tag];
      if (!tag) tag = Variable::make(f->thread_tag);
      to_tag[f->var.get()] = tag;
    }
    Expr min = substitute(use.index, to_tag), max = min;
    for (size_t i = use.loops.size(); i > 0; --i) {  // relax every other loop, innermost first
      const For* f = use.loops[i - 1];
      if (to_tag.count(f->var.get())) continue;
      SymVarIntervals relax{{f->var.get(), {substitute(f->min, to_tag),
                                            simplify(substitute(f->min + f->extent - 1, to_tag))}}};
      min = sym_bounds_of(min, relax).min;
      max = sym_bounds_of(max, relax).max;
      if (!min || !max) return std::nullopt;
    }
    if (!base) base = min;
    int64_t from = 0, to = 0;
    if (!is_const_int(simplify(min - *base), &from) || !is_const_int(simplify(max - *base), &to)) return std::nullopt;
    lo = std::min(lo, from);
    hi = std::max(hi, to);
  }
  if (!base) return std::nullopt;
  return BlockSpan{simplify(*base + lo), hi - lo + 1};
}

// Rewrites the accesses of `from` into `to` at index - base, base's tag variables replaced by the
// blockIdx loops around each access.
class RebaseUses : public IRMutator {
 public:
  RebaseUses(const BufferNode* from, Buffer to, Expr base, const std::map<std::string, Var>& tags)
      : from_(from), to_(std::move(to)), base_(std::move(base)), tags_(tags) {}

 protected:
  using IRMutator::mutate;
  Stmt mutate(const For* op, const Stmt& self) override {
    const bool block = op->for_kind == ForKind::ThreadBound && thread_level(op->thread_tag) == ThreadLevel::Block;
    Expr saved;
    if (block) {
      saved = at_[op->thread_tag];
      at_[op->thread_tag] = op->var;
    }
    Stmt out = IRMutator::mutate(op, self);
    if (block) at_[op->thread_tag] = saved;
    return out;
  }
  Stmt mutate(const Allocate* op, const Stmt& self) override {
    if (op->buffer.get() != from_) return IRMutator::mutate(op, self);
    return Allocate::make(to_, mutate_stmt(op->body));
  }
  Expr mutate(const Load* op, const Expr& self) override {
    if (op->buffer.get() != from_) return IRMutator::mutate(op, self);
    return Load::make(to_, {rebase(mutate_expr(op->indices[0]))});
  }
  Stmt mutate(const Store* op, const Stmt& self) override {
    if (op->buffer.get() != from_) return IRMutator::mutate(op, self);
    return op->with(to_, {rebase(mutate_expr(op->indices[0]))}, mutate_expr(op->value));
  }

 private:
  Expr rebase(const Expr& index) {
    VarMap here;
    for (const auto& [tag, var] : tags_) here[var.get()] = at_[tag];
    return simplify(index - substitute(base_, here));
  }
  const BufferNode* from_;
  Buffer to_;
  Expr base_;
  const std::map<std::string, Var>& tags_;
  std::map<std::string, Expr> at_;
};

bool is_block_loop(const Stmt& s) {
  const For* f = s ? s->as<For>() : nullptr;
  return f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Block;
}

// Sibling nests bound to the same blockIdx tag with the same range become one loop running them in
// turn: what a GPU does (each block runs every nest of the kernel in order; there is no barrier
// across the grid), and what cuda-interp then runs too, with the block's shared buffers inside it.
Stmt fuse_block_nests(const Stmt& s) {
  if (!s) return s;
  if (const Allocate* a = s->as<Allocate>()) return Allocate::make(a->buffer, fuse_block_nests(a->body));
  if (const LetStmt* l = s->as<LetStmt>()) return LetStmt::make(l->var, l->value, fuse_block_nests(l->body));
  if (is_block_loop(s)) return s->as<For>()->with_body(fuse_block_nests(s->as<For>()->body));
  const Seq* q = s->as<Seq>();
  if (!q || q->stmts.empty()) return s;
  const For* first = q->stmts[0]->as<For>();
  std::vector<Stmt> bodies;
  for (const Stmt& x : q->stmts) {
    const For* f = x->as<For>();
    if (!is_block_loop(x) || f->thread_tag != first->thread_tag || !structurally_equal(f->min, first->min) ||
        !structurally_equal(f->extent, first->extent))
      return s;
    bodies.push_back(substitute(f->body, VarMap{{f->var.get(), first->var}}));
  }
  return first->with_body(fuse_block_nests(Seq::make(bodies)));
}

// s with `allocs` allocated inside its outermost chain of block loops (where the block's part of
// the kernel starts), or around s where it does not start with one.
Stmt allocate_in_block(const Stmt& s, const std::vector<Buffer>& allocs) {
  if (const Allocate* a = s->as<Allocate>()) return Allocate::make(a->buffer, allocate_in_block(a->body, allocs));
  if (const LetStmt* l = s->as<LetStmt>()) return LetStmt::make(l->var, l->value, allocate_in_block(l->body, allocs));
  if (is_block_loop(s)) {
    const For* f = s->as<For>();
    const Stmt& inner = f->body;
    if (is_block_loop(inner) || inner->as<Allocate>() || inner->as<LetStmt>()) return f->with_body(allocate_in_block(inner, allocs));
    Stmt body = inner;
    for (size_t i = allocs.size(); i > 0; --i) body = Allocate::make(allocs[i - 1], body);
    return f->with_body(body);
  }
  Stmt out = s;
  for (size_t i = allocs.size(); i > 0; --i) out = Allocate::make(allocs[i - 1], out);
  return out;
}

// A kernel of several blocks: each global intermediate becomes the shared buffer of the part one
// block touches, allocated in the block. Sound for every program without a cross-block race
// (cuda-interp's check): an element written by one block is read and written by that block only,
// so a block-private copy holds the same values.
Stmt privatize_block_intermediates(Stmt body, const std::vector<Buffer>& globals) {
  std::set<const BufferNode*> moved;
  for (const Buffer& b : globals) moved.insert(b.get());
  body = drop_allocates(body, moved);
  body = fuse_block_nests(body);
  std::vector<Buffer> allocs;
  for (const Buffer& b : globals) {
    CollectUses uses(b.get());
    uses.mutate_stmt(body);
    std::map<std::string, Var> tags;
    std::optional<BlockSpan> span;
    int64_t elements = 0;
    std::optional<int64_t> full;
    if (b->shape.size() == 1 && is_const_int(b->shape[0], &elements)) full = elements;
    if (uses.flat) span = block_span(uses.uses, tags);
    if (span && full && span->extent >= *full) span.reset();
    std::vector<Expr> shape = b->shape;
    Expr base = IntImm::make(Index(), 0);
    if (span) {  // else the whole buffer in each block, at the same indices
      shape = {IntImm::make(Index(), span->extent)};
      base = span->base;
    } else {
      tags.clear();
    }
    Buffer shared = BufferNode::make(b->name, b->dtype, shape, MemScope::Shared, b->role);
    body = RebaseUses(b.get(), shared, base, tags).mutate_stmt(body);
    allocs.push_back(shared);
  }
  return allocate_in_block(body, allocs);
}

}  // namespace

Stmt hoist_gpu_allocations(const Stmt& body) {
  Hoister h;
  Stmt out = h.wrap_globals(h.mutate_stmt(body));
  // A kernel of one block (no blockIdx loop: the stages of an op left in one block, ordered by
  // barriers) keeps its intermediates in the block's shared memory; a kernel cannot allocate
  // global memory.
  bool blocks = false;
  BufferMap to_shared;
  std::vector<Buffer> globals;
  for_each_stmt(out, [&](const Stmt& n) {
    if (const For* f = n->as<For>(); f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Block)
      blocks = true;
    if (const Allocate* a = n->as<Allocate>(); a && a->buffer->scope == MemScope::Global) {
      const Buffer& b = a->buffer;
      to_shared[b.get()] = BufferNode::make(b->name, b->dtype, b->shape, MemScope::Shared, b->role);
      globals.push_back(b);
    }
  });
  if (blocks) return privatize_block_intermediates(out, globals);
  if (to_shared.empty()) return out;
  return substitute_buffers(out, to_shared);
}

}  // namespace texc
