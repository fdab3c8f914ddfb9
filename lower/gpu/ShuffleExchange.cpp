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
  std::map<std::string, Buffer> buffers;  // by element type

 protected:
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
    class Replace : public IRMutator {
     public:
      Replace(const Call* c, Expr e) : call_(c), with_(std::move(e)) {}

     protected:
      Expr mutate(const Call* op, const Expr& self) override { return op == call_ ? with_ : IRMutator::mutate(op, self); }

     private:
      const Call* call_;
      Expr with_;
    };
    Expr replaced = Replace(shuffle, received).mutate_expr(op->value);
    return Seq::make({Store::make(xchg, {tid_}, value), thread_barrier(), op->with(op->buffer, op->indices, replaced), thread_barrier()});
  }

 private:
  Expr tid_;
  int64_t threads_;
};

Stmt exchange(const Stmt& s) {
  if (!s) return s;
  if (const For* f = s->as<For>(); is_thread_loop(f)) {
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
  }
  if (const For* f = s->as<For>()) return f->with_body(exchange(f->body));
  if (const Seq* q = s->as<Seq>()) {
    std::vector<Stmt> out;
    for (const Stmt& x : q->stmts) out.push_back(exchange(x));
    return Seq::make(out);
  }
  if (const IfThenElse* i = s->as<IfThenElse>()) return IfThenElse::make(i->cond, exchange(i->then_case), exchange(i->else_case));
  if (const Allocate* a = s->as<Allocate>()) return Allocate::make(a->buffer, exchange(a->body));
  if (const LetStmt* l = s->as<LetStmt>()) return LetStmt::make(l->var, l->value, exchange(l->body));
  if (const AttrStmt* a = s->as<AttrStmt>()) return a->with_body(exchange(a->body));
  return s;
}

}  // namespace

Stmt exchange_shuffles(const Stmt& body) { return exchange(body); }

}  // namespace texc
