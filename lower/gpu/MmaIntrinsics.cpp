#include "lower/gpu/MmaIntrinsics.h"

#include <cmath>

#include "ir/IROperators.h"
#include "ir/IRVisitor.h"

namespace texc {

namespace {

IntrinsicDef mma_definition(const std::string& name, Intrinsic element) {
  IntrinsicDef d;
  d.name = name;
  d.lower_kind = "cuda.mma";
  d.symbol = intrinsic_name(element);
  const int64_t kk = mma_shape(element).k;
  const Type operand = element == Intrinsic::MmaSyncF16 ? Float(16) : element == Intrinsic::MmaSyncBf16 ? BFloat16() : Float(32);
  Buffer a = BufferNode::make("a", operand, {make_int(16), make_int(kk)}, MemScope::Global, BufferRole::Input);
  Buffer b = BufferNode::make("b", operand, {make_int(kk), make_int(8)}, MemScope::Global, BufferRole::Input);
  Buffer c = BufferNode::make("c", Float(32), {make_int(16), make_int(8)}, MemScope::Global, BufferRole::Output);
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Expr a_ik = Load::make(a, {i, k}), b_kj = Load::make(b, {k, j});
  if (operand != Float(32)) a_ik = Cast::make(Float(32), a_ik), b_kj = Cast::make(Float(32), b_kj);
  Stage stage;
  stage.name = "c";
  stage.buffer = c;
  stage.axes = {IterVar{i, make_int(0), make_int(16), false}, IterVar{j, make_int(0), make_int(8), false}};
  stage.body = Reduce::make(ReduceKind::Sum, Binary::make(BinaryOp::Mul, a_ik, b_kj),
                            {IterVar{k, make_int(0), make_int(kk), true}});
  d.inputs = {a, b};
  d.outputs = {c};
  d.stages = {stage};
  return d;
}

}  // namespace

std::vector<IntrinsicDef> cuda_mma_intrinsics() {
  return {mma_definition("cuda.mma_tf32", Intrinsic::MmaSyncTf32),
          mma_definition("cuda.mma_3xtf32", Intrinsic::MmaSync3xTf32),
          mma_definition("cuda.mma_f16", Intrinsic::MmaSyncF16),
          mma_definition("cuda.mma_bf16", Intrinsic::MmaSyncBf16)};
}

MmaShape mma_shape(Intrinsic element) {
  return element == Intrinsic::MmaSyncF16 || element == Intrinsic::MmaSyncBf16 ? MmaShape{16, 8, 4} : MmaShape{8, 4, 2};
}

bool is_mma(Intrinsic which) {
  return which == Intrinsic::MmaSyncTf32 || which == Intrinsic::MmaSync3xTf32 || which == Intrinsic::MmaSyncF16 ||
         which == Intrinsic::MmaSyncBf16;
}

FragmentElement mma_a_element(const MmaShape& shape, const Expr& lane, int r) {
  const Expr g = lane / make_int(4), t = lane % make_int(4);
  if (shape.k == 8) return {g + make_int(8 * (r % 2)), t + make_int(4 * (r / 2))};
  return {g + make_int(8 * ((r / 2) % 2)), t * make_int(2) + make_int(r % 2 + 8 * (r / 4))};
}

FragmentElement mma_b_element(const MmaShape& shape, const Expr& lane, int r) {
  const Expr g = lane / make_int(4), t = lane % make_int(4);
  if (shape.k == 8) return {t + make_int(4 * r), g};
  return {t * make_int(2) + make_int(r % 2 + 8 * (r / 2)), g};
}

FragmentElement mma_c_element(const Expr& lane, int r) {
  return {lane / make_int(4) + make_int(8 * (r / 2)), lane % make_int(4) * make_int(2) + make_int(r % 2)};
}

FragmentHolder mma_a_holder(const MmaShape& shape, const Expr& row, const Expr& col) {
  if (shape.k == 8)
    return {row % make_int(8) * make_int(4) + col % make_int(4), row / make_int(8) + col / make_int(4) * make_int(2)};
  return {row % make_int(8) * make_int(4) + col % make_int(8) / make_int(2),
          col % make_int(2) + row / make_int(8) * make_int(2) + col / make_int(8) * make_int(4)};
}

FragmentHolder mma_b_holder(const MmaShape& shape, const Expr& row, const Expr& col) {
  if (shape.k == 8) return {col * make_int(4) + row % make_int(4), row / make_int(4)};
  return {col * make_int(4) + row % make_int(8) / make_int(2), row % make_int(2) + row / make_int(8) * make_int(2)};
}

LdMatrixSource ldmatrix_source(const Expr& lane, int reg, int element, int element_bytes, bool trans) {
  const Expr g = lane / make_int(4), t = lane % make_int(4);
  if (trans) return {make_int(8 * reg + element) + t * make_int(2), g};
  return {make_int(8 * reg) + g, t * make_int(4 / element_bytes) + make_int(element)};
}

double input_unit_roundoff(const Stmt& body) {
  bool tf32 = false;
  for_each_expr(body, [&](const Expr& e) {
    if (is_intrinsic_call(e->as<Call>(), Intrinsic::MmaSyncTf32)) tf32 = true;
  });
  return tf32 ? std::ldexp(1.0, -11) : 0.0;
}

}  // namespace texc
