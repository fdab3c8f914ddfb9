#include "lower/passes/VectorizeLoops.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/ExprOrder.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/LinearForm.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/Remarks.h"
#include "lower/passes/UnswitchRaggedVectors.h"
#include "lower/analysis/BufferAccess.h"

namespace texc {

namespace {

constexpr int kMaxLanes = 64;
constexpr const char* kNotIndependent =
    "its lanes are not provably independent (each lane must store only its own elements, at a constant stride, of "
    "every buffer it writes)";

bool is_ramp_or_broadcast(const Expr& e) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) { found = found || x->as<Ramp>() || x->as<Broadcast>(); });
  return found;
}

// Rewrites the body of one vectorized loop. `failed` is set when something has no vector form; the
// result is then meaningless and the caller keeps the scalar loop.
class Vectorizer : public IRMutator {
 public:
  Vectorizer(const Variable* var, Expr min, int lanes) : var_(var), lanes_(lanes) {
    ramp_ = Ramp::make(min, make_int(1, min->type), lanes);
  }
  bool failed = false;
  // Variables bound inside the body (loops, lets): a stored index must not depend on them.
  std::unordered_set<const Variable*> inner_vars;
  // Buffers allocated inside the body, widened to one slice per lane.
  std::unordered_set<const BufferNode*> lane_private_buffers;
  std::string why;  // why it failed
  bool lane_guard_failed = false;  // it failed first at an if whose condition differs across lanes

  Expr mutate_expr(const Expr& e) override {
    if (failed || !e) return e;
    return IRMutator::mutate_expr(e);
  }
  Stmt mutate_stmt(const Stmt& s) override {
    if (failed || !s) return s;
    return IRMutator::mutate_stmt(s);
  }

 protected:
  // Gives up on the loop; the first reason is kept for the remark (lower/Remarks.h).
  Expr fail(const Expr& self, const std::string& reason = "it contains an expression with no vector form") {
    if (!failed) why = reason;
    failed = true;
    return self;
  }
  Stmt fail(const Stmt& self, const std::string& reason = "it contains a statement with no vector form") {
    if (!failed) why = reason;
    failed = true;
    return self;
  }
  bool is_vec(const Expr& e) const { return e->type.lanes == lanes_; }
  Expr widen(const Expr& e) {
    if (e->type.lanes == lanes_) return e;
    if (e->type.lanes != 1) {
      failed = true;
      return Broadcast::make(make_const(e->type.element_of(), 0), lanes_);
    }
    return Broadcast::make(e, lanes_);
  }
  bool scalar_int(const Expr& e) const { return e->type.is_scalar() && e->type.is_integer(); }
  Expr ramp(const Expr& base, const Expr& stride) const { return Ramp::make(simplify(base), simplify(stride), lanes_); }
  // Element i of a widened buffer for every lane: i*lanes + lane.
  std::vector<Expr> lane_private_index(const Expr& i) {
    Expr lanes = make_const(i->type.element_of(), double(lanes_));
    if (!is_vec(i)) return {ramp(i * lanes, make_const(i->type, 1))};
    return {Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, i, Broadcast::make(lanes, lanes_)),
                         Ramp::make(make_const(i->type.element_of(), 0), make_const(i->type.element_of(), 1), lanes_))};
  }

  Expr mutate(const Variable* op, const Expr& self) override {
    if (op == var_) return ramp_;
    auto it = renamed_.find(op);
    return it == renamed_.end() ? self : it->second;
  }
  Expr mutate(const Ramp*, const Expr& self) override { return fail(self, "it holds vector code already"); }
  Expr mutate(const Broadcast*, const Expr& self) override { return fail(self, "it holds vector code already"); }
  Expr mutate(const Reduce*, const Expr& self) override { return fail(self); }

  Expr mutate(const Binary* op, const Expr& self) override {
    Expr a = mutate_expr(op->a);
    Expr b;
    if ((op->op == BinaryOp::And || op->op == BinaryOp::Or) && is_vec(a)) {
      // The second operand is evaluated on every lane, also where the first decides the result.
      ++speculative_;
      b = mutate_expr(op->b);
      --speculative_;
    } else {
      b = mutate_expr(op->b);
    }
    if (failed) return self;
    if (!is_vec(a) && !is_vec(b)) return a == op->a && b == op->b ? self : Binary::make(op->op, a, b);
    const Ramp* ra = a->as<Ramp>();
    const Ramp* rb = b->as<Ramp>();
    if (op->op == BinaryOp::Add || op->op == BinaryOp::Sub) {
      bool add = op->op == BinaryOp::Add;
      if (ra && rb)
        return ramp(add ? ra->base + rb->base : ra->base - rb->base,
                    add ? ra->stride + rb->stride : ra->stride - rb->stride);
      if (ra && scalar_int(b)) return ramp(add ? ra->base + b : ra->base - b, ra->stride);
      if (rb && scalar_int(a))
        return add ? ramp(a + rb->base, rb->stride) : ramp(a - rb->base, make_const(rb->stride->type, 0) - rb->stride);
    }
    if (op->op == BinaryOp::Mul) {
      if (ra && scalar_int(b) && is_const_int(b)) return ramp(ra->base * b, ra->stride * b);
      if (rb && scalar_int(a) && is_const_int(a)) return ramp(a * rb->base, a * rb->stride);
    }
    if (speculative_ && (op->op == BinaryOp::Div || op->op == BinaryOp::Mod) && op->type.is_integer()) {
      int64_t c;
      if (!is_const_int(b, &c) || c == 0)
        return fail(self, "a select that differs across lanes divides by a non-constant in a branch");
    }
    return Binary::make(op->op, widen(a), widen(b));
  }

  Expr mutate(const Not* op, const Expr& self) override {
    Expr a = mutate_expr(op->a);
    return a == op->a ? self : Not::make(a);
  }

  Expr mutate(const Select* op, const Expr& self) override {
    Expr c = mutate_expr(op->cond);
    bool varying = is_vec(c);
    if (varying) ++speculative_;
    Expr t = mutate_expr(op->true_value), f = mutate_expr(op->false_value);
    if (varying) --speculative_;
    if (failed) return self;
    if (!varying && !is_vec(t) && !is_vec(f))
      return c == op->cond && t == op->true_value && f == op->false_value ? self : Select::make(c, t, f);
    // A lane-invariant condition stays scalar: one branch is taken for every lane.
    return Select::make(c, widen(t), widen(f));
  }

  Expr mutate(const Cast* op, const Expr& self) override {
    Expr v = mutate_expr(op->value);
    if (v == op->value) return self;
    return Cast::make(op->type.with_lanes(v->type.lanes), v);
  }

  Expr mutate(const Call* op, const Expr& self) override {
    if (op->call_kind == CallKind::Extern) return fail(self, "it calls the extern function '" + op->name + "'");
    if (op->call_kind == CallKind::Intrinsic && !is_value_hint(op))
      return fail(self, "it calls the intrinsic '" + op->name + "'");
    bool changed = false;
    auto args = mutate_exprs(op->args, &changed);
    if (failed) return self;
    bool vec = false;
    for (const Expr& a : args) vec = vec || is_vec(a);
    if (!vec) return changed ? Call::make(op->type, op->name, std::move(args), op->call_kind) : self;
    for (Expr& a : args) a = widen(a);
    return Call::make(op->type.with_lanes(lanes_), op->name, std::move(args), op->call_kind);
  }

  Expr mutate(const Load* op, const Expr& self) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    if (failed) return self;
    Buffer buffer = op->buffer;
    if (auto w = widened_.find(buffer.get()); w != widened_.end()) {
      buffer = w->second;
      idx = lane_private_index(idx[0]);
      changed = true;
    }
    if (speculative_) {
      // This load may run on lanes (or iterations) the original never evaluated it for: keep every
      // index inside the buffer.
      for (size_t d = 0; d < idx.size(); ++d) {
        int64_t extent;
        if (!is_const_int(buffer->shape[d], &extent) || extent < 1)
          return fail(self, "a select that differs across lanes reads '" + buffer->name + "', whose shape is not constant");
        Type t = idx[d]->type.element_of();
        Expr lo = make_const(idx[d]->type, 0), hi = make_const(idx[d]->type, double(extent - 1));
        if (t != Index()) return fail(self);
        // Marked, so that a code generator with masked loads may read the unclamped lanes under the
        // select's mask instead (the clamp changes no lane the select keeps).
        Expr clamped = max(min(idx[d], hi), lo);
        idx[d] = make_intrinsic_call(Intrinsic::LaneClamp, clamped->type, {clamped, idx[d]});
        changed = true;
      }
    }
    bool vec = false;
    for (const Expr& i : idx) vec = vec || is_vec(i);
    if (vec)
      for (Expr& i : idx) i = widen(i);
    return changed ? Load::make(buffer, std::move(idx)) : self;
  }

  Expr mutate(const Let* op, const Expr& self) override {
    Expr value = mutate_expr(op->value);
    if (failed) return self;
    inner_vars.insert(op->var.get());
    if (is_vec(value)) {
      Var v = Variable::make(op->var->name, value->type);
      renamed_[op->var.get()] = v;
      inner_vars.insert(v.get());
      return Let::make(v, value, mutate_expr(op->body));
    }
    Expr body = mutate_expr(op->body);
    return value == op->value && body == op->body ? self : Let::make(op->var, value, body);
  }

  Stmt mutate(const Store* op, const Stmt& self) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    Expr value = mutate_expr(op->value);
    if (failed) return self;
    Buffer buffer = op->buffer;
    if (auto w = widened_.find(buffer.get()); w != widened_.end()) {
      buffer = w->second;
      idx = lane_private_index(idx[0]);
    }
    bool vec = false;
    for (const Expr& i : idx) vec = vec || is_vec(i);
    // A store that every lane makes to the same place cannot keep the serial order of its lanes.
    if (!vec) return fail(self, "every lane stores to the same element of '" + op->buffer->name + "'");
    for (Expr& i : idx) i = widen(i);
    return op->with(buffer, std::move(idx), widen(value));
  }

  // An allocation inside the vectorized loop holds one iteration's values: it gets one slice per
  // lane, element e of lane l at e*lanes + l, so the lanes never share an element.
  Stmt mutate(const Allocate* op, const Stmt& self) override {
    int64_t size;
    if (op->buffer->ndim() != 1 || !is_const_int(op->buffer->shape[0], &size) || size < 1 ||
        op->buffer->shape[0]->type != Index())
      return fail(self, "it allocates '" + op->buffer->name + "' with a shape that is not one constant extent");
    const BufferNode& b = *op->buffer;
    Buffer wide = BufferNode::make(b.name, b.dtype, {make_int(size * lanes_)}, b.scope, b.role);
    widened_[op->buffer.get()] = wide;
    lane_private_buffers.insert(wide.get());
    Stmt body = mutate_stmt(op->body);
    if (failed) return self;
    return Allocate::make(wide, body);
  }

  Stmt mutate(const For* op, const Stmt& self) override {
    if (op->for_kind != ForKind::Serial && op->for_kind != ForKind::Unrolled)
      return fail(self, std::string("it contains the ") + for_kind_name(op->for_kind) + " loop '" + op->var->name + "'");
    Expr mn = mutate_expr(op->min), ext = mutate_expr(op->extent);
    if (failed || is_vec(mn) || is_vec(ext))
      return fail(self, "the bounds of its inner loop '" + op->var->name + "' depend on it");
    inner_vars.insert(op->var.get());
    Stmt body = mutate_stmt(op->body);
    if (failed) return self;
    return mn == op->min && ext == op->extent && body == op->body
               ? self
               : op->with_range(mn, ext, body);
  }

  Stmt mutate(const IfThenElse* op, const Stmt& self) override {
    Expr c = mutate_expr(op->cond);
    if (!failed && is_vec(c)) lane_guard_failed = true;
    if (failed || is_vec(c))
      return fail(self, "the condition of an if inside it depends on it: " + to_string(op->cond) +
                            " (a tail guard keeps vector code when it is a comparison linear in the loop's variable "
                            "that uses no variable of a loop inside it; a split factor that divides the extent leaves "
                            "no guard)");
    Stmt t = mutate_stmt(op->then_case), e = mutate_stmt(op->else_case);
    if (failed) return self;
    return c == op->cond && t == op->then_case && e == op->else_case ? self : IfThenElse::make(c, t, e);
  }

  Stmt mutate(const LetStmt* op, const Stmt& self) override {
    Expr value = mutate_expr(op->value);
    if (failed) return self;
    inner_vars.insert(op->var.get());
    if (is_vec(value)) {
      Var v = Variable::make(op->var->name, value->type);
      renamed_[op->var.get()] = v;
      inner_vars.insert(v.get());
      return LetStmt::make(v, value, mutate_stmt(op->body));
    }
    Stmt body = mutate_stmt(op->body);
    return value == op->value && body == op->body ? self : LetStmt::make(op->var, value, body);
  }

  Stmt mutate(const Block*, const Stmt& self) override { return fail(self); }
  Stmt mutate(const Evaluate*, const Stmt& self) override { return fail(self, "it evaluates a call for its effect"); }
  Stmt mutate(const AttrStmt*, const Stmt& self) override { return fail(self, "it contains an attribute statement"); }

 private:
  const Variable* var_;
  int lanes_;
  Expr ramp_;
  std::unordered_map<const Variable*, Expr> renamed_;
  std::unordered_map<const BufferNode*, Buffer> widened_;
  int speculative_ = 0;
};

// The lanes of a vectorized body are independent when every stored buffer is accessed, everywhere
// in the body, with the same indices: exactly one of them a Ramp of constant non-zero stride s, the
// others lane-invariant and free of variables bound inside the body. The Ramp's base may use such
// variables (loops inside the vectorized one) only linearly, with coefficients that are multiples
// of s*lanes: then lane l at one inner iteration and lane l' != l at another never meet, since
// their addresses differ by s*(l' - l) plus a multiple of s*lanes.
bool lanes_are_independent(const Stmt& body, const std::unordered_set<const Variable*>& inner_vars, int lanes,
                           const std::unordered_set<const BufferNode*>& lane_private) {
  auto uses_inner = [&](const Expr& e) {
    bool found = false;
    for_each_expr(e, [&](const Expr& x) {
      if (const Variable* v = x->as<Variable>(); v && inner_vars.count(v)) found = true;
    });
    return found;
  };
  // The indices of a store: one Ramp of constant stride whose base moves by multiples of the
  // period with the inner loops; the other indices lane-invariant.
  auto distinct_lanes = [&](const std::vector<Expr>& indices) {
    int ramps = 0;
    for (const Expr& i : indices) {
      const Ramp* r = i->as<Ramp>();
      int64_t stride;
      if (!r) {
        if ((i->type.is_vector() && !i->as<Broadcast>()) || uses_inner(i)) return false;
        continue;
      }
      ++ramps;
      if (!is_const_int(r->stride, &stride) || stride == 0 || uses_inner(r->stride)) return false;
      __int128 period = __int128(stride) * lanes;
      for (const Variable* v : inner_vars) {
        auto k = linear_coefficient(r->base, v);
        if (!k || (*k != 0 && __int128(*k) % period != 0)) return false;
      }
    }
    return ramps == 1;
  };
  auto same_indices = [](const std::vector<Expr>& a, const std::vector<Expr>& b) {
    for (size_t d = 0; d < a.size(); ++d)
      if (!same_expr(a[d], b[d])) return false;
    return true;
  };
  AccessMap accesses = collect_accesses(body, lane_private);
  for (const Buffer& b : accesses.order) {
    const std::vector<BufferAccess>& list = accesses.by_buffer.at(b.get());
    auto store = std::find_if(list.begin(), list.end(), [](const BufferAccess& a) { return a.is_store; });
    if (store == list.end()) continue;  // only read: any lanes may read it
    if (!distinct_lanes(store->indices)) return false;
    for (const BufferAccess& a : list)
      if (a.whole_buffer || !same_indices(a.indices, store->indices)) return false;
  }
  return true;
}

class LoopVectorizer : public IRMutator {
 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    Stmt lowered = IRMutator::mutate(op, self);
    const For* loop = lowered->as<For>();
    if (loop->for_kind != ForKind::Vectorized) return lowered;
    // A loop left serial is reported (a remark at the vectorize primitive), except one of 1 lane.
    auto serial = [&](const std::string& why) {
      if (!why.empty())
        report_remark({PendingRemark::Subject::Loop, loop->var->name,
                       "vectorized loop '" + loop->var->name + "' runs as scalar code: " + why});
      return For::make(loop->var, loop->min, loop->extent, ForKind::Serial, loop->body);
    };
    int64_t lanes;
    if (!is_const_int(loop->extent, &lanes)) return serial("its extent " + to_string(loop->extent) + " is not a constant");
    if (lanes < 2) return serial("");
    if (lanes > kMaxLanes)
      return serial(std::to_string(lanes) + " lanes are more than the " + std::to_string(kMaxLanes) +
                    " texc vectorizes; split it and vectorize the inner loop");
    if (is_ramp_or_broadcast(loop->min)) return serial("it lies inside another vectorized loop");
    Vectorizer vectorizer(loop->var.get(), loop->min, int(lanes));
    Stmt body = vectorizer.mutate_stmt(loop->body);
    if (vectorizer.failed && vectorizer.lane_guard_failed) {
      // A tail guard that unswitch_ragged could not lift: say what else keeps the body scalar.
      if (auto guards = lane_guards(loop)) {
        Stmt dropped = drop_lane_guards(loop->body, *guards);
        Vectorizer without(loop->var.get(), loop->min, int(lanes));
        Stmt vec = without.mutate_stmt(dropped);
        if (without.failed) return serial(without.why);
        if (!lanes_are_independent(vec, without.inner_vars, int(lanes), without.lane_private_buffers))
          return serial(kNotIndependent);
      }
    }
    if (vectorizer.failed) return serial(vectorizer.why);
    if (!lanes_are_independent(body, vectorizer.inner_vars, int(lanes), vectorizer.lane_private_buffers))
      return serial(kNotIndependent);
    return body;
  }
};

}  // namespace

bool vectorizes(const For* loop) {
  int64_t lanes;
  if (!is_const_int(loop->extent, &lanes) || lanes < 2 || lanes > kMaxLanes || is_ramp_or_broadcast(loop->min))
    return false;
  Vectorizer vectorizer(loop->var.get(), loop->min, int(lanes));
  Stmt body = vectorizer.mutate_stmt(loop->body);
  return !vectorizer.failed &&
         lanes_are_independent(body, vectorizer.inner_vars, int(lanes), vectorizer.lane_private_buffers);
}


Stmt vectorize_loops(const Stmt& s) { return LoopVectorizer().mutate_stmt(s); }

}  // namespace texc
