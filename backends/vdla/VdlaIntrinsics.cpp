#include "backends/vdla/VdlaIntrinsics.h"

#include "ir/IROperators.h"

namespace texc::vdla {

IntrinsicDef gemm_intrinsic(const VdlaConfig& config) {
  IntrinsicDef d;
  d.name = "vdla.gemm";
  d.lower_kind = "vdla.gemm";
  // The batch axis appears only when there is more than one row: a batch of 1 is the spec's
  // vector form, the one schedules tensorize (a 1-row loop would have to be written out).
  const bool rows = config.batch > 1;
  std::vector<Expr> inp_shape = {make_int(config.block_in)}, acc_shape = {make_int(config.block_out)};
  if (rows) {
    inp_shape.insert(inp_shape.begin(), make_int(config.batch));
    acc_shape.insert(acc_shape.begin(), make_int(config.batch));
  }
  Buffer inp = BufferNode::make("inp", Int(8), inp_shape, MemScope::Global, BufferRole::Input);
  Buffer wgt = BufferNode::make("wgt", Int(8), {make_int(config.block_out), make_int(config.block_in)},
                                MemScope::Global, BufferRole::Input);
  Buffer acc = BufferNode::make("acc", Int(32), acc_shape, MemScope::Global, BufferRole::Output);
  Var b = Variable::make("b"), j = Variable::make("j"), k = Variable::make("k");
  std::vector<Expr> inp_index = {k};
  if (rows) inp_index.insert(inp_index.begin(), b);
  Expr source = Binary::make(BinaryOp::Mul, Cast::make(Int(32), Load::make(inp, inp_index)),
                             Cast::make(Int(32), Load::make(wgt, {j, k})));
  Stage stage;
  stage.name = "acc";
  stage.buffer = acc;
  if (rows) stage.axes.push_back(IterVar{b, make_int(0), make_int(config.batch), false});
  stage.axes.push_back(IterVar{j, make_int(0), make_int(config.block_out), false});
  stage.body = Reduce::make(ReduceKind::Sum, source, {IterVar{k, make_int(0), make_int(config.block_in), true}});
  d.inputs = {inp, wgt};
  d.outputs = {acc};
  d.stages = {stage};
  return d;
}

std::vector<IntrinsicDef> builtin_intrinsics(const VdlaConfig& config) { return {gemm_intrinsic(config)}; }

}  // namespace texc::vdla
