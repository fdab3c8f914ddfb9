#include "lower/gpu/CrossThreadReduction.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Intrinsics.h"
#include "ir/StructuralEqual.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/analysis/ReductionUpdate.h"
#include "lower/gpu/Barriers.h"

namespace texc {

namespace {

constexpr int64_t kWarpSize = 32;
const char* const kThreadTags[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};

bool is_thread_loop(const For* f) {
  return f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Thread;
}

bool same_indices(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structurally_equal(a[i], b[i])) return false;
  return true;
}

// The updates of one element that every thread of L makes: a cross-thread reduction.
struct Reduction {
  const For* loop = nullptr;
  Buffer buffer;
  std::vector<Expr> indices;
  ReduceKind kind = ReduceKind::Sum;
  std::string stage;
  std::set<const StmtNode*> updates;
  std::vector<Expr> guard;  // the conditions around every update that hold for the whole group
};

// The conditions around each update of r (conds_: those around the statement visited), keeping
// in r.guard the terms every update has that use neither L's index nor a variable bound inside L.
class GuardCollector : public IRVisitor {
 public:
  GuardCollector(Reduction* r, const std::set<const Variable*>& inner) : r_(r), inner_(inner) {}

  void visit_stmt(const Stmt& s) override {
    if (s && r_->updates.count(s.get())) return update();
    IRVisitor::visit_stmt(s);
  }
  void visit_expr(const Expr&) override {}  // the guards are the ifs' conditions

 protected:
  using IRVisitor::visit;
  void visit(const IfThenElse* i) override {
    for (const Expr& c : conjuncts(i->cond)) conds_.push_back(c);
    visit_stmt(i->then_case);
    conds_.resize(conds_.size() - conjuncts(i->cond).size());
    conds_.push_back(logical_not(i->cond));
    visit_stmt(i->else_case);
    conds_.pop_back();
  }

 private:
  void update() {
    std::vector<Expr> uniform;
    for (const Expr& c : conds_) {
      bool keep = !uses_var(c, r_->loop->var.get());
      for (const Variable* v : inner_) keep = keep && !uses_var(c, v);
      if (keep) uniform.push_back(c);
    }
    if (first_) r_->guard = uniform;
    else {
      std::vector<Expr> both;
      for (const Expr& c : r_->guard)
        for (const Expr& u : uniform)
          if (structurally_equal(c, u)) {
            both.push_back(c);
            break;
          }
      r_->guard = both;
    }
    first_ = false;
  }

  Reduction* r_;
  const std::set<const Variable*>& inner_;
  std::vector<Expr> conds_;
  bool first_ = true;
};

// s with every `v == c` (c a constant) replaced by true.
Stmt without_single_thread_guards(const Stmt& s, const Variable* v) {
  class Remover : public IRMutator {
   public:
    explicit Remover(const Variable* v) : v_(v) {}

   protected:
    Expr mutate(const Binary* op, const Expr& self) override {
      auto is_v = [&](const Expr& e) { return e->as<Variable>() == v_; };
      if (op->op == BinaryOp::EQ && ((is_v(op->a) && is_const_int(op->b)) || (is_v(op->b) && is_const_int(op->a))))
        return make_bool(true);
      return IRMutator::mutate(op, self);
    }

   private:
    const Variable* v_;
  };
  return Remover(v).mutate_stmt(s);
}

class Lowerer : public IRMutator {
 public:
  Lowerer(const std::map<std::string, SourceLoc>& bind_locs, const std::set<std::string>* reduction_loops)
      : bind_locs_(bind_locs), reduction_loops_(reduction_loops) {}

  Stmt run(const Stmt& body) {
    for_each_stmt(body, [&](const Stmt& n) {
      const For* f = n->as<For>();
      int64_t e = 0;
      if (is_thread_loop(f) && is_const_int(f->extent, &e)) extents_[f->thread_tag] = std::max(extents_[f->thread_tag], e);
      if (const Allocate* a = n->as<Allocate>()) allocated_.insert(a->buffer.get());
    });
    return mutate_stmt(body);
  }

 private:
  int64_t extent(const std::string& tag) const {
    auto it = extents_.find(tag);
    return it == extents_.end() ? 1 : it->second;
  }

  [[noreturn]] void fail_at(const For* l, DiagId id, const std::string& a, const std::string& b, const std::string& c) {
    auto it = bind_locs_.find(l->var->name);
    throw_error(id, it == bind_locs_.end() ? SourceLoc{} : it->second, l->var->name, l->thread_tag, a, b, c);
  }

  // The cross-thread reduction L makes, or nullopt when L's threads write only their own elements
  // or each makes the whole reduction (L's index used at most in `L == c` guards: the default
  // schedule's nests without spatial loops run on thread 0).
  std::optional<Reduction> find_reduction(const For* l) {
    if (reduction_loops_ && !reduction_loops_->count(l->var->name)) return std::nullopt;
    if (!uses_var(without_single_thread_guards(l->body, l->var.get()), l->var.get())) return std::nullopt;
    std::set<const BufferNode*> inner_buffers;
    for_each_stmt(l->body, [&](const Stmt& n) {
      if (const Allocate* a = n->as<Allocate>()) inner_buffers.insert(a->buffer.get());
    });
    Reduction r;
    r.loop = l;
    for_each_stmt(l->body, [&](const Stmt& n) {
      const Store* s = n->as<Store>();
      if (!s || inner_buffers.count(s->buffer.get())) return;
      for (const Expr& i : s->indices)
        if (uses_var(i, l->var.get())) return;
      auto update = match_reduction_update(s);
      if (!update) return;
      if (!r.buffer) {
        r.buffer = s->buffer;
        r.indices = s->indices;
        r.kind = update->first;
        r.stage = s->stage;
      } else if (r.buffer != s->buffer || !same_indices(r.indices, s->indices) || r.kind != update->first) {
        fail_at(l, DiagId::GpuCrossThreadTwoUpdates, r.buffer->name, s->buffer->name, "");
      }
      r.updates.insert(n.get());
    });
    if (!r.buffer) return std::nullopt;
    std::set<const Variable*> inner;
    for_each_stmt(l->body, [&](const Stmt& n) {
      if (const For* f = n->as<For>()) inner.insert(f->var.get());
      if (const LetStmt* s = n->as<LetStmt>()) inner.insert(s->var.get());
    });
    GuardCollector(&r, inner).visit_stmt(l->body);
    return r;
  }

  // The reduction's legality: what the lowering below assumes.
  void check(const Reduction& r) {
    const For* l = r.loop;
    for_each_stmt(l->body, [&](const Stmt& n) {
      if (const For* f = n->as<For>(); is_thread_loop(f))
        fail_at(l, DiagId::GpuCrossThreadInnerThreadLoop, f->var->name, f->thread_tag, "");
      Var inner;
      if (const For* f = n->as<For>()) inner = f->var;
      if (const LetStmt* s = n->as<LetStmt>()) inner = s->var;
      if (!inner) return;
      for (const Expr& i : r.indices)
        if (uses_var(i, inner.get())) fail_at(l, DiagId::GpuCrossThreadSpatialInside, inner->name, r.buffer->name, "");
    });
    if (!divergent_.empty()) fail_at(l, DiagId::GpuCrossThreadDivergent, divergent_, "", "");
    const int level = l->thread_tag == "threadIdx.x" ? 0 : l->thread_tag == "threadIdx.y" ? 1 : 2;
    for (int t = 0; t < level; ++t)
      if (extent(kThreadTags[t]) > 1)
        fail_at(l, DiagId::GpuCrossThreadNotInnermost, kThreadTags[t], std::to_string(extent(kThreadTags[t])), "");
  }

  bool thread_dependent(const Expr& e) const {
    for (const auto& [tag, v] : thread_vars_)
      if (uses_var(e, v.get())) return true;
    return false;
  }

  using IRMutator::mutate;

  Stmt mutate(const For* f, const Stmt& self) override {
    if (is_thread_loop(f)) {
      int64_t t = 0;
      if (auto r = find_reduction(f); r && is_const_int(f->extent, &t)) {
        check(*r);
        return lower(*r, t, false);
      }
      Var saved = thread_vars_[f->thread_tag];
      thread_vars_[f->thread_tag] = f->var;
      Stmt body = mutate_stmt(f->body);
      thread_vars_[f->thread_tag] = saved;
      if (!saved) thread_vars_.erase(f->thread_tag);
      return f->with_body(body);
    }
    int64_t v = 0;
    const bool vthread = f->for_kind == ForKind::ThreadBound && f->thread_tag == "vthread" && is_const_int(f->extent, &v);
    if (vthread) vthreads_.push_back({f->var, v});
    std::string saved = divergent_;
    if (divergent_.empty() && (thread_dependent(f->min) || thread_dependent(f->extent))) divergent_ = "loop '" + f->var->name + "'";
    Stmt body = mutate_stmt(f->body);
    divergent_ = saved;
    if (vthread) vthreads_.pop_back();
    return f->with_body(body);
  }

  Stmt mutate(const Seq* q, const Stmt&) override {
    std::vector<Stmt> out;
    for (const Stmt& x : q->stmts) {
      const For* f = x->as<For>();
      int64_t t = 0;
      std::optional<Reduction> r;
      if (is_thread_loop(f) && is_const_int(f->extent, &t)) r = find_reduction(f);
      // The reduction's init right before it: the total is the whole result.
      const Store* init = out.empty() ? nullptr : out.back()->as<Store>();
      if (r && init && init->buffer == r->buffer && r->buffer->scope != MemScope::Local &&
          same_indices(init->indices, r->indices) &&
          structurally_equal(init->value, Reduce::identity(r->kind, r->buffer->dtype))) {
        check(*r);
        out.back() = lower(*r, t, true);
        continue;
      }
      out.push_back(mutate_stmt(x));
    }
    return Seq::make(out);
  }

  Stmt mutate(const IfThenElse* i, const Stmt& self) override {
    std::string saved = divergent_;
    if (divergent_.empty() && thread_dependent(i->cond)) divergent_ = "condition '" + to_string(i->cond) + "'";
    Stmt out = IRMutator::mutate(i, self);
    divergent_ = saved;
    return out;
  }

  // The lowering of one reduction over the T threads of loop r.loop; `complete`: r's init stood
  // right before the loop (and is dropped), so the total is the result.
  Stmt lower(const Reduction& r, int64_t t, bool complete) {
    const For* l = r.loop;
    const Type dt = r.buffer->dtype;
    const Expr identity = Reduce::identity(r.kind, dt);
    const Expr tx = l->var;

    // The group (row) of this thread: the thread indices above the reduction's tag. A tag of the
    // kernel that no loop around L binds gets one (of its full extent) around L.
    const int level = l->thread_tag == "threadIdx.x" ? 0 : l->thread_tag == "threadIdx.y" ? 1 : 2;
    std::vector<std::pair<std::string, Var>> wrap;
    Expr g = make_int(0);
    int64_t groups = 1;
    for (int k = level + 1; k < 3; ++k) {
      int64_t e = extent(kThreadTags[k]);
      if (e == 1) continue;
      Var v;
      if (auto it = thread_vars_.find(kThreadTags[k]); it != thread_vars_.end()) v = it->second;
      else {
        v = Variable::make(std::string(kThreadTags[k]) == "threadIdx.y" ? "ty" : "tz", Index());
        wrap.push_back({kThreadTags[k], v});
      }
      g = g + Expr(v) * make_int(groups);
      groups *= e;
    }
    g = simplify(g);

    // The group's shared slots: one per group and virtual thread (the virtual threads of a thread
    // run its reduction one after another, between the same barriers).
    Expr slot = g;
    int64_t slots = groups;
    for (const auto& [v, e] : vthreads_) {
      slot = slot + Expr(v) * make_int(slots);
      slots *= e;
    }
    slot = simplify(slot);

    // Its place in the block's warps.
    const Expr tid = simplify(tx + g * make_int(t));
    const Expr lane = simplify(tid % make_int(kWarpSize));
    const Expr row_first_warp = simplify(g * make_int(t) / make_int(kWarpSize));
    int64_t segments = 1;  // warps a group touches, at most
    for (int64_t k = 0; k < groups; ++k)
      segments = std::max(segments, (k * t + t - 1) / kWarpSize - (k * t) / kWarpSize + 1);
    const bool warp_aligned = t % kWarpSize == 0 || groups == 1;

    Buffer acc = BufferNode::make(r.buffer->name + "_red", dt, {make_int(1)}, MemScope::Local);
    Buffer shuffled = BufferNode::make(r.buffer->name + "_shfl", dt, {make_int(1)}, MemScope::Local);
    auto acc_value = [&] { return Load::make(acc, {make_int(0)}); };
    auto set_acc = [&](Expr v) { return Store::make(acc, {make_int(0)}, std::move(v)); };
    std::vector<Stmt> seq;
    bool used_shuffle = false, used_barrier = false;

    // A warp-shuffle tree over runs of up to n lanes: afterwards the first lane of each run holds
    // its run's total. `guarded`: a lane adds only lanes of its own group that exist.
    auto warp_reduce = [&](int64_t n, bool guarded) {
      int64_t offset = 1;
      while (offset * 2 < n) offset *= 2;
      for (; n > 1 && offset >= 1; offset /= 2) {
        used_shuffle = true;
        seq.push_back(Store::make(shuffled, {make_int(0)},
                                  make_intrinsic_call(Intrinsic::ShuffleDown, dt, {acc_value(), make_int(offset, Int(32))})));
        Stmt add = set_acc(Reduce::combine(r.kind, acc_value(), Load::make(shuffled, {make_int(0)})));
        if (guarded) add = IfThenElse::make(logical_and(tx + make_int(offset) < make_int(t), lane + make_int(offset) < make_int(kWarpSize)), add);
        seq.push_back(add);
      }
    };

    // 1. This thread's part, in its register.
    class Accumulate : public IRMutator {
     public:
      Accumulate(const Reduction& r, const Buffer& acc) : r_(r), acc_(acc) {}

     protected:
      Stmt mutate(const Store* op, const Stmt& self) override {
        if (!r_.updates.count(op)) return IRMutator::mutate(op, self);
        Expr x = match_reduction_update(op)->second;
        return Store::make(acc_, {make_int(0)}, Reduce::combine(r_.kind, Load::make(acc_, {make_int(0)}), x));
      }

     private:
      const Reduction& r_;
      const Buffer& acc_;
    };
    seq.push_back(set_acc(identity));
    seq.push_back(Accumulate(r, acc).mutate_stmt(l->body));

    // 2. Within each warp.
    warp_reduce(std::min(t, kWarpSize), t % kWarpSize != 0);

    // 3. Across the warps of a group: their first lanes' values through shared memory.
    Buffer partial;
    if (segments > 1) {
      partial = BufferNode::make(r.buffer->name + "_warps", dt, {make_int(slots * segments)}, MemScope::Shared);
      Expr seg = simplify(tid / make_int(kWarpSize) - row_first_warp);
      Expr slot0 = simplify(slot * make_int(segments));
      seq.push_back(IfThenElse::make(logical_or(eq(tx, make_int(0)), eq(lane, make_int(0))),
                                     Store::make(partial, {simplify(slot0 + seg)}, acc_value())));
      seq.push_back(thread_barrier());
      used_barrier = true;
      if (warp_aligned) {  // the group's first warp
        seq.push_back(set_acc(Select::make(tx < make_int(segments), Load::make(partial, {simplify(slot0 + tx)}), identity)));
        warp_reduce(segments, false);
      } else {  // the group's first thread, in order
        Var s = Variable::make("w", Index());
        Expr count = simplify((g * make_int(t) + make_int(t - 1)) / make_int(kWarpSize) - row_first_warp + make_int(1));
        Stmt loop = For::make(s, make_int(0), count, ForKind::Serial,
                              set_acc(Reduce::combine(r.kind, acc_value(), Load::make(partial, {simplify(slot0 + Expr(s))}))));
        seq.push_back(IfThenElse::make(eq(tx, make_int(0)), Seq::make({set_acc(identity), loop})));
      }
    }

    // 4. The result, written once (every thread's copy of a local buffer).
    Buffer broadcast;
    if (r.buffer->scope == MemScope::Local) {
      broadcast = BufferNode::make(r.buffer->name + "_bcast", dt, {make_int(slots)}, MemScope::Shared);
      seq.push_back(IfThenElse::make(eq(tx, make_int(0)), Store::make(broadcast, {slot}, acc_value())));
      seq.push_back(thread_barrier());
      Expr old = Load::make(r.buffer, r.indices);
      Stmt write = Store::make(r.buffer, r.indices, Reduce::combine(r.kind, old, Load::make(broadcast, {slot})), r.stage);
      Expr guard;
      for (const Expr& c : r.guard) guard = guard ? logical_and(guard, c) : c;
      seq.push_back(guard ? IfThenElse::make(guard, write) : write);
      seq.push_back(thread_barrier());  // every thread has read the slot before a next reduction writes it
    } else {
      if (!complete && !used_barrier) seq.push_back(thread_barrier());  // after every thread's init
      Expr value = complete ? acc_value() : Reduce::combine(r.kind, Load::make(r.buffer, r.indices), acc_value());
      Expr writer = eq(tx, make_int(0));
      for (const Expr& c : r.guard) writer = logical_and(writer, c);  // a row past the tensor's end
      for (const auto& [tag, v] : wrap) writer = logical_and(writer, eq(v, make_int(0)));  // rows that only repeat it
      seq.push_back(IfThenElse::make(writer, Store::make(r.buffer, r.indices, value, r.stage)));
      // An intermediate of the kernel: the other threads read it after this barrier.
      if (allocated_.count(r.buffer.get())) seq.push_back(thread_barrier());
    }

    Stmt body = Seq::make(seq);
    if (broadcast) body = Allocate::make(broadcast, body);
    if (partial) body = Allocate::make(partial, body);
    if (used_shuffle) body = Allocate::make(shuffled, body);
    body = Allocate::make(acc, body);
    Stmt out = l->with_body(body);
    for (const auto& [tag, v] : wrap) out = For::make(v, make_int(0), make_int(extent(tag)), ForKind::ThreadBound, out, tag);
    return out;
  }

  const std::map<std::string, SourceLoc>& bind_locs_;
  const std::set<std::string>* reduction_loops_;
  std::map<std::string, int64_t> extents_;  // of each threadIdx tag in the kernel
  std::set<const BufferNode*> allocated_;   // the kernel's own buffers
  std::map<std::string, Var> thread_vars_;  // the enclosing thread loops
  std::vector<std::pair<Var, int64_t>> vthreads_;  // the enclosing vthread loops, with their extents
  std::string divergent_;                   // the enclosing thread-dependent condition or loop
};

}  // namespace

Stmt lower_cross_thread_reductions(const Stmt& body, const std::map<std::string, SourceLoc>& bind_locs,
                                   const std::set<std::string>* reduction_loops) {
  return Lowerer(bind_locs, reduction_loops).run(body);
}

}  // namespace texc
