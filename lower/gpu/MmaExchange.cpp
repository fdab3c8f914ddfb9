#include "lower/gpu/MmaExchange.h"

#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/Intrinsics.h"
#include "lower/gpu/Barriers.h"
#include "lower/gpu/MmaIntrinsics.h"

namespace texc {

namespace {

Expr round_tf32(const Expr& x) { return make_intrinsic_call(Intrinsic::RoundTf32, Float(32), {x}); }

// a * b as the mma computes it from the operands (f16 and bf16 ones exactly, in f32).
Expr product(const Expr& a, const Expr& b, Intrinsic which) {
  if (which == Intrinsic::MmaSyncF16 || which == Intrinsic::MmaSyncBf16) return a * b;
  Expr a_big = round_tf32(a), b_big = round_tf32(b);
  if (which == Intrinsic::MmaSyncTf32) return a_big * b_big;
  Expr a_small = round_tf32(a - a_big), b_small = round_tf32(b - b_big);
  return a_big * b_big + (a_big * b_small + a_small * b_big);
}

}  // namespace

Stmt exchange_mma(const Call* mma, const Expr& tid, const Buffer& xa, const Buffer& xb, const Buffer& rows) {
  const Intrinsic which = *intrinsic_of(mma);
  const MmaShape shape = mma_shape(which);
  const Expr na = make_int(shape.a_elements), nb = make_int(shape.b_elements);
  auto as_f32 = [](const Expr& x) { return x->type == Float(32) ? x : Cast::make(Float(32), x); };
  const Expr lane = tid % make_int(32), warp = tid - lane;
  std::vector<Stmt> seq;
  // ldmatrix operands (A: 0, B: 1): every lane's row start, then each element from the row start
  // of the lane that names its row
  const int first_element[2] = {4, 4 + shape.a_elements};
  for (int operand = 0; operand < 2; ++operand)
    if (const Call* c = mma->args[size_t(first_element[operand])]->as<Call>(); is_intrinsic_call(c, Intrinsic::LdMatrix))
      seq.push_back(Store::make(rows, {tid * make_int(2) + make_int(operand)}, c->args[0]->as<Load>()->indices[0]));
  if (!seq.empty()) seq.push_back(thread_barrier());
  auto element = [&](int operand, int q) -> Expr {
    const Expr& arg = mma->args[size_t(first_element[operand] + q)];
    const Call* c = arg->as<Call>();
    if (!is_intrinsic_call(c, Intrinsic::LdMatrix)) return arg;
    const Load* row = c->args[0]->as<Load>();
    int64_t trans = 0, reg = 0, unit = 0;
    TEXC_CHECK(row && is_const_int(c->args[2], &trans) && is_const_int(c->args[3], &reg) && is_const_int(c->args[4], &unit))
        << "ldmatrix takes a Load and constant trans, register and element";
    LdMatrixSource s = ldmatrix_source(lane, int(reg), int(unit), row->buffer->dtype.bytes(), trans != 0);
    Expr start = Load::make(rows, {(warp + s.source) * make_int(2) + make_int(operand)});
    return Load::make(row->buffer, {start + s.offset});
  };
  for (int q = 0; q < shape.a_elements; ++q)
    seq.push_back(Store::make(xa, {tid * na + make_int(q)}, as_f32(element(0, q))));
  for (int q = 0; q < shape.b_elements; ++q)
    seq.push_back(Store::make(xb, {tid * nb + make_int(q)}, as_f32(element(1, q))));
  seq.push_back(thread_barrier());
  for (int r = 0; r < 4; ++r) {
    const Load* acc = mma->args[r]->as<Load>();
    TEXC_CHECK(acc) << "the accumulator arguments of " << mma->name << " are buffer elements";
    FragmentElement c = mma_c_element(lane, r);
    Expr sum;
    for (int64_t k = 0; k < shape.k; ++k) {
      FragmentHolder a = mma_a_holder(shape, c.row, make_int(k)), b = mma_b_holder(shape, make_int(k), c.col);
      Expr term = product(Load::make(xa, {(warp + a.lane) * na + a.reg}),
                          Load::make(xb, {(warp + b.lane) * nb + b.reg}), which);
      sum = sum ? sum + term : term;
    }
    seq.push_back(Store::make(acc->buffer, acc->indices, Expr(mma->args[r]) + sum));
  }
  seq.push_back(thread_barrier());
  return Seq::make(seq);
}

}  // namespace texc
