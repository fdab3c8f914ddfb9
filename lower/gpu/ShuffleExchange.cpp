#include "lower/gpu/ShuffleExchange.h"

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Target.h"
#include "lower/gpu/Barriers.h"
#include "lower/gpu/MmaExchange.h"
#include "lower/gpu/MmaIntrinsics.h"

namespace texc {

namespace {

constexpr int64_t kWarpSize = 32;

bool is_thread_loop(const For* f) {
  return f && f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Thread;
}


// The shuffles of one block's thread program, through one exchange buffer per element type.
class Exchanger : public IRMutator {
 public:
  Exchanger(Expr tid, int64_t threads) : tid_(std::move(tid)), threads_(threads) {}
  std::map<std::string, Buffer> buffers;  // by element type (shuffles), mma_a, mma_b and mma_rows (mma)

 protected:
  Stmt mutate(const Evaluate* op, const Stmt& self) override {
    const Call* mma = op->value->as<Call>();
    std::optional<Intrinsic> which = mma ? intrinsic_of(mma) : std::nullopt;
    if (!which || !is_mma(*which)) return IRMutator::mutate(op, self);
    Buffer& xa = buffers["mma_a"];  // slots for the most elements a lane holds (f16: 8 of A, 4 of B)
    Buffer& xb = buffers["mma_b"];
    if (!xa) xa = BufferNode::make("mma_a", Float(32), {make_int(threads_ * 8)}, MemScope::Shared);
    Buffer& rows = buffers["mma_rows"];  // ldmatrix operands' row starts: A's and B's per thread
    if (!xb) xb = BufferNode::make("mma_b", Float(32), {make_int(threads_ * 4)}, MemScope::Shared);
    if (!rows) rows = BufferNode::make("mma_rows", Index(), {make_int(threads_ * 2)}, MemScope::Shared);
    return exchange_mma(mma, tid_, xa, xb, rows);
  }

  Stmt mutate(const Store* op, const Stmt& self) override {
    const Call* shuffle = nullptr;
    for_each_expr(op->value, [&](const Expr& e) {
      const Call* c = e->as<Call>();
      if (!is_intrinsic_call(c, Intrinsic::ShuffleDown)) return;
      TEXC_CHECK(!shuffle) << "two shuffles in one statement: " << op->buffer->name;
      shuffle = c;
    });
    if (!shuffle) return IRMutator::mutate(op, self);
    const Expr& value = shuffle->args[0];
    const Type t = value->type;
    Buffer& xchg = buffers[t.str()];
    if (!xchg) xchg = BufferNode::make("shuffle_" + t.str(), t, {make_int(threads_)}, MemScope::Shared);
    Expr k = shuffle->args[1]->type == Index() ? shuffle->args[1] : Cast::make(Index(), shuffle->args[1]);
    Expr source = tid_ + k;
    Expr absent = t.is_float() ? make_float(std::numeric_limits<double>::quiet_NaN(), t) : value;
    Expr received = Select::make(tid_ % make_int(kWarpSize) + k < make_int(kWarpSize),
                                 Select::make(source < make_int(threads_), Load::make(xchg, {source}), absent), value);
    Expr replaced = mutate_with<Call>(op->value, [&](auto& m, const Call* c, const Expr& e) {
      return c == shuffle ? received : m.descend(c, e);
    });
    return Seq::make({Store::make(xchg, {tid_}, value), thread_barrier(), op->with(op->buffer, op->indices, replaced), thread_barrier()});
  }

 private:
  Expr tid_;
  int64_t threads_;
};

// Each block's thread program (the body of its outermost thread loop) through one Exchanger.
Stmt exchange(const Stmt& s) {
  return mutate_with<For>(s, [](auto& m, const For* f, const Stmt& self) {
    if (!is_thread_loop(f)) return m.descend(f, self);
    // The block's thread loops, outermost (threadIdx.z) first.
    std::vector<const For*> nest = {f};
    while (is_thread_loop(nest.back()->body->as<For>())) nest.push_back(nest.back()->body->as<For>());
    Expr tid = make_int(0);
    int64_t threads = 1;
    for (const For* loop : nest) {
      int64_t e = 0;
      TEXC_CHECK(is_const_int(loop->extent, &e)) << "thread loop " << loop->var->name << " of non-constant extent";
      tid = tid * make_int(e) + Expr(loop->var);
      threads *= e;
    }
    Exchanger x(tid, threads);
    Stmt body = x.mutate_stmt(nest.back()->body);
    for (size_t i = nest.size(); i > 0; --i) body = nest[i - 1]->with_body(body);
    for (const auto& [t, b] : x.buffers) body = Allocate::make(b, body);
    return body;
  });
}

}  // namespace

Stmt exchange_shuffles(const Stmt& body) { return exchange(body); }

}  // namespace texc
