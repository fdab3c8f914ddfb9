// Builds two small lowered ops by hand and compiles each into its own object file plus C header,
// the way `texc FILE.tex --target x86|arm --emit obj,header` does for .tex files:
//
//   matmul(A: f32[32, 16], B: f32[16, 24]) -> C: f32[32, 24]   (outer loop parallel)
//   axpy(alpha: f32[1], X: f32[37], Y0: f32[37]) -> Y: f32[37]  (8-lane vector loop + scalar tail)
//
// Usage: c_api_build_ops x86|arm OUT_DIR   (writes OUT_DIR/{matmul,axpy}.{o,h})
#include <fstream>
#include <iostream>

#include "backends/llvm/LLVMBackend.h"
#include "ir/IROperators.h"

using namespace texc;

namespace {

Buffer arg(const std::string& name, int64_t size, BufferRole role) {
  return BufferNode::make(name, Float(32), {make_int(size)}, "global", role);
}
Expr load(const Buffer& b, Expr index) { return Load::make(b, {std::move(index)}); }
Stmt store(const Buffer& b, Expr index, Expr value) { return Store::make(b, {std::move(index)}, std::move(value)); }
Stmt loop(const Var& v, int64_t min, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return For::make(v, make_int(min), make_int(extent), kind, std::move(body));
}

// parallel i in 0..M { for j in 0..N { C[i*N+j] = 0; for k in 0..K { C[i*N+j] += A[i*K+k] * B[k*N+j] } } }
LoweredFunc matmul(int64_t M, int64_t N, int64_t K) {
  Buffer a = arg("A", M * K, BufferRole::Input), b = arg("B", K * N, BufferRole::Input);
  Buffer c = arg("C", M * N, BufferRole::Output);
  Var i = Variable::make("i"), j = Variable::make("j"), k = Variable::make("k");
  Expr c_index = Expr(i) * N + j;
  Stmt update = store(c, c_index, load(c, c_index) + load(a, Expr(i) * K + k) * load(b, Expr(k) * N + j));
  Stmt body = loop(j, 0, N, Seq::make({store(c, c_index, make_float(0.0)), loop(k, 0, K, update)}));
  return {"matmul", {a, b, c}, loop(i, 0, M, body, ForKind::Parallel), {{M, K}, {K, N}, {M, N}}};
}

// for xo in 0..n/8 { Y[ramp(xo*8)] = bcast(alpha[0]) * X[ramp(xo*8)] + Y0[ramp(xo*8)] }
// for t in n/8*8..n { Y[t] = alpha[0] * X[t] + Y0[t] }
LoweredFunc axpy(int64_t n) {
  Buffer alpha = arg("alpha", 1, BufferRole::Input), x = arg("X", n, BufferRole::Input);
  Buffer y0 = arg("Y0", n, BufferRole::Input), y = arg("Y", n, BufferRole::Output);
  Var xo = Variable::make("xo"), t = Variable::make("t");
  Expr lanes = Ramp::make(Expr(xo) * 8, make_int(1), 8);
  Expr a = load(alpha, make_int(0));
  Stmt vector_loop = loop(xo, 0, n / 8, store(y, lanes, Broadcast::make(a, 8) * load(x, lanes) + load(y0, lanes)));
  Stmt tail = loop(t, n / 8 * 8, n % 8, store(y, t, a * load(x, t) + load(y0, t)));
  return {"axpy", {alpha, x, y0, y}, Seq::make({vector_loop, tail}), {{1}, {n}, {n}, {n}}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " x86|arm OUT_DIR\n";
    return 2;
  }
  CpuTargetOptions target;
  target.arch = argv[1];
  // A portable x86 baseline: the example binary may run on another machine than the one building it.
  if (target.arch == "x86") target.mcpu = "x86-64-v2";
  std::string dir = argv[2];
  for (const LoweredFunc& op : {matmul(32, 24, 16), axpy(37)}) {
    write_object({op}, target, dir + "/" + op.name + ".o");  // one object per op: they link together
    std::ofstream(dir + "/" + op.name + ".h") << emit_c_header({op});
  }
  return 0;
}
