#include "lower/gpu/Barriers.h"

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"

namespace texc {

Stmt thread_barrier() { return Evaluate::make(make_intrinsic_call(Intrinsic::ThreadBarrier, Int(32), {})); }

bool is_thread_barrier(const Stmt& s) {
  const Evaluate* e = s ? s->as<Evaluate>() : nullptr;
  return e && is_intrinsic_call(e->value->as<Call>(), Intrinsic::ThreadBarrier);
}

bool contains_thread_barrier(const Stmt& s) {
  bool found = false;
  if (s)
    for_each_stmt(s, [&](const Stmt& n) { found = found || is_thread_barrier(n); });
  return found;
}

Stmt without_thread_barriers(const Stmt& s) {
  class Remover : public IRMutator {
   protected:
    Stmt mutate(const Evaluate* op, const Stmt& self) override {
      if (is_intrinsic_call(op->value->as<Call>(), Intrinsic::ThreadBarrier)) return Evaluate::make(make_int(0));
      return IRMutator::mutate(op, self);
    }
  };
  return Remover().mutate_stmt(s);
}

}  // namespace texc
