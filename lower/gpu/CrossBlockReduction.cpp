#include "lower/gpu/CrossBlockReduction.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/StructuralEqual.h"
#include "ir/Substitute.h"
#include "ir/Target.h"

#include "lower/analysis/ReductionUpdate.h"

namespace texc {

namespace {

bool is_block_loop(const For* f) {
  return f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Block;
}

bool uses_any(const std::vector<Expr>& es, const Variable* v) {
  return std::any_of(es.begin(), es.end(), [&](const Expr& e) { return uses_var(e, v); });
}

bool is_zero(const Expr& e) {
  if (const FloatImm* f = e->as<FloatImm>()) return f->value == 0.0;
  return is_const_int(e, int64_t(0));
}

bool has_atomic_add(Type t) {
  return (t.is_float() && (t.bits == 32 || t.bits == 64)) || (t.is_int() && (t.bits == 32 || t.bits == 64)) ||
         (t.is_uint() && (t.bits == 32 || t.bits == 64));
}

bool reads(const Expr& e, const BufferNode* b) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) {
    if (const Load* l = x->as<Load>(); l && l->buffer.get() == b) found = true;
  });
  return found;
}

// The buffers allocated inside s.
std::set<const BufferNode*> allocated_in(const Stmt& s) {
  std::set<const BufferNode*> out;
  for_each_stmt(s, [&](const Stmt& x) {
    if (const Allocate* a = x->as<Allocate>()) out.insert(a->buffer.get());
  });
  return out;
}

// The updates inside L of elements that do not depend on L, of buffers allocated outside L.
std::vector<const Store*> cross_block_updates(const For* l) {
  std::set<const BufferNode*> inner = allocated_in(l->body);
  std::vector<const Store*> out;
  for_each_stmt(l->body, [&](const Stmt& x) {
    const Store* s = x->as<Store>();
    if (s && !inner.count(s->buffer.get()) && match_reduction_update(s) && !uses_any(s->indices, l->var.get())) out.push_back(s);
  });
  return out;
}

// The reduction loops bound to block indices, outermost first.
std::vector<const For*> find_loops(const Stmt& body, const std::set<std::string>* named) {
  std::vector<const For*> out;
  for_each_stmt(body, [&](const Stmt& x) {
    const For* f = x->as<For>();
    if (!is_block_loop(f)) return;
    if (named ? named->count(f->var->name) != 0 : !cross_block_updates(f).empty()) out.push_back(f);
  });
  return out;
}

class Lowerer {
 public:
  Lowerer(LoweredFunc* f, const For* loop, const std::map<std::string, SourceLoc>& bind_locs)
      : f_(f), loop_(loop), bind_locs_(bind_locs) {}

  void run() {
    classify();
    Rewriter rewriter(this);
    Stmt body = rewriter.mutate_stmt(f_->body);
    f_->body = For::make(loop_->var, loop_->min, loop_->extent, ForKind::ThreadBound, body, loop_->thread_tag);
    for (const Buffer& a : f_->args)
      if (zeroed_.count(a.get())) f_->launch.zeroed_outputs.push_back(a->name);
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(DiagId id, Args&&... args) const {
    auto it = bind_locs_.find(loop_->var->name);
    throw_error(id, it == bind_locs_.end() ? SourceLoc{} : it->second, loop_->var->name, loop_->thread_tag,
                std::forward<Args>(args)...);
  }

  const Buffer* argument(const BufferNode* b) const {
    for (const Buffer& a : f_->args)
      if (a.get() == b) return &a;
    return nullptr;
  }
  bool is_output(const BufferNode* b) const {
    const Buffer* a = argument(b);
    return a && (*a)->role == BufferRole::Output;
  }

  // Which buffers L reduces into: outputs updated in place (direct) or local partials (cached).
  void classify() {
    for (const Store* s : cross_block_updates(loop_)) {
      const BufferNode* b = s->buffer.get();
      ReduceKind kind = match_reduction_update(s)->first;
      if (kind != ReduceKind::Sum) fail(DiagId::GpuCrossBlockCombiner, b->name, reduce_kind_name(kind));
      if (b->scope == MemScope::Local) {
        cached_.insert(b);
        continue;
      }
      if (!is_output(b))
        fail(DiagId::GpuCrossBlockNotOutput, b->name,
             b->scope == MemScope::Shared ? std::string("a shared buffer") : std::string("an intermediate stage, not an output"));
      if (!has_atomic_add(b->dtype)) fail(DiagId::GpuCrossBlockType, b->name, b->dtype.str());
      direct_.insert(b);
      zeroed_.insert(b);
    }
    if (direct_.empty() && cached_.empty())
      throw_error(DiagId::ScheduleError,
                  bind_locs_.count(loop_->var->name) ? bind_locs_.at(loop_->var->name) : SourceLoc{},
                  "reduction loop '" + loop_->var->name + "' bound to " + loop_->thread_tag +
                      " updates no element outside it; bind it to a thread index, or keep it serial");
  }

  class Rewriter : public IRMutator {
   public:
    explicit Rewriter(Lowerer* l) : l_(l) {}

   protected:
    using IRMutator::mutate;
    Stmt mutate(const For* op, const Stmt& self) override {
      if (op != l_->loop_) return IRMutator::mutate(op, self);
      inside_ = true;
      Stmt body = mutate_stmt(op->body);
      inside_ = false;
      return body;
    }
    Stmt mutate(const Store* op, const Stmt& self) override {
      const BufferNode* b = op->buffer.get();
      if (inside_) {
        if (!l_->direct_.count(b)) return self;
        auto update = match_reduction_update(op);
        if (!update || uses_any(op->indices, l_->loop_->var.get()))
          l_->fail(DiagId::GpuCrossBlockUse, b->name, to_string(self));
        return atomic_add(op->buffer, op->indices, update->second);
      }
      if (l_->direct_.count(b)) {  // the reduction's init, or another write of its output
        if (is_zero(op->value)) return Seq::make({});
        l_->fail(DiagId::GpuCrossBlockUse, b->name, one_line(self));
      }
      for (const BufferNode* c : l_->cached_) {
        if (!reads(op->value, c)) continue;
        const Load* whole = op->value->as<Load>();
        if (b->scope == MemScope::Local || b->scope == MemScope::Shared || !whole || whole->buffer.get() != c)
          l_->fail(DiagId::GpuCrossBlockUse, c->name, one_line(self));
        if (!l_->is_output(b))
          l_->fail(DiagId::GpuCrossBlockNotOutput, c->name, "written into '" + b->name + "', not an output");
        if (!has_atomic_add(b->dtype)) l_->fail(DiagId::GpuCrossBlockType, b->name, b->dtype.str());
        l_->zeroed_.insert(b);
        return atomic_add(op->buffer, op->indices, op->value);
      }
      if (b->scope != MemScope::Local && b->scope != MemScope::Shared)
        l_->fail(DiagId::GpuCrossBlockOtherStore, b->name, one_line(self));
      return self;
    }
    Expr mutate(const Load* op, const Expr& self) override {
      if (!inside_ && l_->direct_.count(op->buffer.get()))
        l_->fail(DiagId::GpuCrossBlockUse, op->buffer->name, to_string(self));
      return IRMutator::mutate(op, self);
    }

   private:
    static std::string one_line(const Stmt& s) {
      std::string text = to_string(s);
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
      size_t start = text.find_first_not_of(' ');
      return start == std::string::npos ? text : text.substr(start);
    }
    static Stmt atomic_add(const Buffer& b, const std::vector<Expr>& indices, const Expr& value) {
      return Evaluate::make(make_intrinsic_call(Intrinsic::AtomicAdd, b->dtype, {Load::make(b, indices), value}));
    }

    Lowerer* l_;
    bool inside_ = false;
  };

  LoweredFunc* f_;
  const For* loop_;
  const std::map<std::string, SourceLoc>& bind_locs_;
  std::set<const BufferNode*> direct_, cached_, zeroed_;
};

}  // namespace

LoweredFunc lower_cross_block_reductions(LoweredFunc f, const std::map<std::string, SourceLoc>& bind_locs,
                                         const std::set<std::string>* reduction_loops) {
  if (!f.body) return f;
  std::vector<const For*> loops = find_loops(f.body, reduction_loops);
  if (loops.empty()) return f;
  if (loops.size() > 1) {
    auto it = bind_locs.find(loops[1]->var->name);
    throw_error(DiagId::GpuCrossBlockTwoLoops, it == bind_locs.end() ? SourceLoc{} : it->second, loops[0]->var->name,
                loops[1]->var->name);
  }
  if (!is_const_int(loops[0]->extent) || !is_const_int(loops[0]->min, int64_t(0)))
    return f;  // make_device_function reports the extent that is not a constant
  Stmt keep = f.body;  // loops[0] points into it
  Lowerer(&f, loops[0], bind_locs).run();
  return f;
}

}  // namespace texc
