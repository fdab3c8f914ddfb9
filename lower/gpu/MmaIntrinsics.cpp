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
  Buffer a = BufferNode::make("a", Float(32), {make_int(16), make_int(8)}, MemScope::Global, BufferRole::Input);
  Buffer b = BufferNode::make("b", Float(32), {make_int(8), make_int(8)}, MemScope::Global, BufferRole::Input);
  Buffer c = BufferNode::make("c", Float(32), {make_int(16), make_int(8)}, MemScope::Global, BufferRole::Output);
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Stage stage;
  stage.name = "c";
  stage.buffer = c;
  stage.axes = {IterVar{i, make_int(0), make_int(16), false}, IterVar{j, make_int(0), make_int(8), false}};
  stage.body = Reduce::make(ReduceKind::Sum, Binary::make(BinaryOp::Mul, Load::make(a, {i, k}), Load::make(b, {k, j})),
                            {IterVar{k, make_int(0), make_int(8), true}});
  d.inputs = {a, b};
  d.outputs = {c};
  d.stages = {stage};
  return d;
}

}  // namespace

std::vector<IntrinsicDef> cuda_mma_intrinsics() {
  return {mma_definition("cuda.mma_tf32", Intrinsic::MmaSyncTf32),
          mma_definition("cuda.mma_3xtf32", Intrinsic::MmaSync3xTf32)};
}

FragmentElement mma_a_element(const Expr& lane, int r) {
  return {lane / make_int(4) + make_int(8 * (r % 2)), lane % make_int(4) + make_int(4 * (r / 2))};
}

FragmentElement mma_b_element(const Expr& lane, int r) {
  return {lane % make_int(4) + make_int(4 * r), lane / make_int(4)};
}

FragmentElement mma_c_element(const Expr& lane, int r) {
  return {lane / make_int(4) + make_int(8 * (r / 2)), lane % make_int(4) * make_int(2) + make_int(r % 2)};
}

FragmentHolder mma_a_holder(const Expr& row, const Expr& col) {
  return {row % make_int(8) * make_int(4) + col % make_int(4), row / make_int(8) + col / make_int(4) * make_int(2)};
}

FragmentHolder mma_b_holder(const Expr& row, const Expr& col) {
  return {col * make_int(4) + row % make_int(4), row / make_int(4)};
}

double input_unit_roundoff(const Stmt& body) {
  bool tf32 = false;
  for_each_expr(body, [&](const Expr& e) {
    if (is_intrinsic_call(e->as<Call>(), Intrinsic::MmaSyncTf32)) tf32 = true;
  });
  return tf32 ? std::ldexp(1.0, -11) : 0.0;
}

}  // namespace texc
