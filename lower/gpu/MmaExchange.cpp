#include "lower/gpu/MmaExchange.h"

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRPrinter.h"
#include "ir/Intrinsics.h"
#include "lower/gpu/Barriers.h"
#include "lower/gpu/MmaIntrinsics.h"

namespace texc {

namespace {

Expr round_tf32(const Expr& x) { return make_intrinsic_call(Intrinsic::RoundTf32, Float(32), {x}); }

// a * b as the mma computes it from the f32 operands.
Expr product(const Expr& a, const Expr& b, bool three_pass) {
  Expr a_big = round_tf32(a), b_big = round_tf32(b);
  if (!three_pass) return a_big * b_big;
  Expr a_small = round_tf32(a - a_big), b_small = round_tf32(b - b_big);
  return a_big * b_big + (a_big * b_small + a_small * b_big);
}

}  // namespace

Stmt exchange_mma(const Store* store, const Call* mma, const Expr& tid, const Buffer& xa, const Buffer& xb) {
  int64_t r = 0;
  TEXC_CHECK(is_const_int(mma->args[0], &r) && r >= 0 && r < 4) << "mma register " << to_string(mma->args[0]);
  const bool three_pass = is_intrinsic_call(mma, Intrinsic::MmaSync3xTf32);
  std::vector<Stmt> seq;
  for (int q = 0; q < 4; ++q) seq.push_back(Store::make(xa, {tid * make_int(4) + make_int(q)}, mma->args[1 + q]));
  for (int q = 0; q < 2; ++q) seq.push_back(Store::make(xb, {tid * make_int(2) + make_int(q)}, mma->args[5 + q]));
  seq.push_back(thread_barrier());
  const Expr lane = tid % make_int(32), warp = tid - lane;
  FragmentElement c = mma_c_element(lane, int(r));
  Expr sum;
  for (int64_t k = 0; k < 8; ++k) {
    FragmentHolder a = mma_a_holder(c.row, make_int(k)), b = mma_b_holder(make_int(k), c.col);
    Expr term = product(Load::make(xa, {(warp + a.lane) * make_int(4) + a.reg}),
                        Load::make(xb, {(warp + b.lane) * make_int(2) + b.reg}), three_pass);
    sum = sum ? sum + term : term;
  }
  Expr value = mutate_with<Call>(store->value, [&](auto& m, const Call* call, const Expr& e) {
    return call == mma ? sum : m.descend(call, e);
  });
  seq.push_back(store->with(store->buffer, store->indices, value));
  seq.push_back(thread_barrier());
  return Seq::make(seq);
}

}  // namespace texc
