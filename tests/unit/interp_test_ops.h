// Shared by the interp unit tests: buffers with constant shapes, and the matmul op as an OpDef.
#pragma once
#include <string>
#include <vector>

#include "ir/IROperators.h"
#include "ir/Op.h"

namespace texc::interp_test {

inline Buffer buffer(const std::string& name, Type t, std::vector<int64_t> shape, BufferRole role,
                     MemScope scope = MemScope::Global) {
  std::vector<Expr> dims;
  for (int64_t e : shape) dims.push_back(make_int(e));
  return BufferNode::make(name, t, dims, scope, role);
}

/// C[i, j] = sum(A[i, k] * B[k, j] for k in 0..K) over the given buffers.
inline OpDef matmul_op(const Buffer& A, const Buffer& B, const Buffer& C, int64_t M, int64_t N, int64_t K) {
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Stage s;
  s.name = "C";
  s.buffer = C;
  s.axes = {IterVar{i, make_int(0), make_int(M)}, IterVar{j, make_int(0), make_int(N)}};
  s.body = Reduce::make(ReduceKind::Sum, Load::make(A, {i, k}) * Load::make(B, {k, j}),
                        {IterVar{k, make_int(0), make_int(K), true}});
  OpDef op;
  op.name = "matmul";
  op.inputs = {A, B};
  op.outputs = {C};
  op.stages = {s};
  return op;
}

}  // namespace texc::interp_test
