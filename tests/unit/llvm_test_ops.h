// Lowered ops built by hand for the LLVM backend's tests (x86 JIT and arm under qemu), in the form
// the lowering produces: 1-D buffers, i64 indices, vector nodes after vectorization.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/IROperators.h"

namespace texc::llvm_test {

inline Buffer arg(const std::string& name, Type t, int64_t size, BufferRole role) {
  return BufferNode::make(name, t, {make_int(size)}, MemScope::Global, role);
}
inline Buffer input(const std::string& name, Type t, int64_t size) { return arg(name, t, size, BufferRole::Input); }
inline Buffer output(const std::string& name, Type t, int64_t size) { return arg(name, t, size, BufferRole::Output); }
inline Expr i64(int64_t v) { return make_int(v); }
inline Expr load(const Buffer& b, Expr index) { return Load::make(b, {std::move(index)}); }
inline Stmt store(const Buffer& b, Expr index, Expr value) { return Store::make(b, {std::move(index)}, std::move(value)); }
inline Stmt loop(const Var& v, int64_t min, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return For::make(v, i64(min), i64(extent), kind, std::move(body));
}
inline Expr ramp(Expr base, int lanes) { return Ramp::make(std::move(base), i64(1), lanes); }
inline Expr call(Type t, const std::string& name, std::vector<Expr> args, CallKind kind = CallKind::Math) {
  return Call::make(t, name, std::move(args), kind);
}

/// C[i] = A[i] + B[i] over f32[n].
inline LoweredFunc elementwise_add(int64_t n, const std::string& name = "add") {
  Buffer a = input("A", Float(32), n), b = input("B", Float(32), n), c = output("C", Float(32), n);
  Var i = Variable::make("i");
  return {name, {a, b, c}, loop(i, 0, n, store(c, i, load(a, i) + load(b, i))), {{n}, {n}, {n}}};
}

/// C[M, N] = A[M, K] x B[K, N] (f32, row-major); the outer loop is parallel when `parallel`.
inline LoweredFunc matmul(int64_t m, int64_t n, int64_t k, bool parallel, const std::string& name = "matmul") {
  Buffer a = input("A", Float(32), m * k), b = input("B", Float(32), k * n), c = output("C", Float(32), m * n);
  Var i = Variable::make("i"), j = Variable::make("j"), r = Variable::make("k");
  Expr c_index = Expr(i) * n + j;
  Stmt update = store(c, c_index, load(c, c_index) + load(a, Expr(i) * k + r) * load(b, Expr(r) * n + j));
  Stmt body = Seq::make({store(c, c_index, make_float(0.0)), loop(r, 0, k, update)});
  Stmt nest = loop(i, 0, m, loop(j, 0, n, body), parallel ? ForKind::Parallel : ForKind::Serial);
  return {name, {a, b, c}, nest, {{m, k}, {k, n}, {m, n}}};
}

/// Y[i] = alpha[0] * X[i] + Y0[i] over f32[n]: 8-lane vector body (Ramp / Broadcast) plus a scalar
/// tail for the n % 8 last elements.
inline LoweredFunc vectorized_axpy(int64_t n, const std::string& name = "axpy") {
  Buffer alpha = input("alpha", Float(32), 1), x = input("X", Float(32), n), y0 = input("Y0", Float(32), n);
  Buffer y = output("Y", Float(32), n);
  Var xo = Variable::make("xo"), t = Variable::make("t");
  Expr base = Expr(xo) * 8;
  Expr a = Broadcast::make(load(alpha, i64(0)), 8);
  Stmt vector_body = store(y, ramp(base, 8), a * load(x, ramp(base, 8)) + load(y0, ramp(base, 8)));
  Stmt tail = store(y, t, load(alpha, i64(0)) * load(x, t) + load(y0, t));
  int64_t main = n / 8 * 8;
  Stmt body = Seq::make({loop(xo, 0, n / 8, vector_body), loop(t, main, n - main, tail)});
  return {name, {alpha, x, y0, y}, body, {{1}, {n}, {n}, {n}}};
}

/// Floor division and modulo of A by B (variable divisors) and by the constants 4, -3 and 7, each into
/// its own output: Q, R, Q4, R4, Qm3, Rm3, Q7. With lanes > 1 the loop body is vectorized.
inline LoweredFunc floor_div_mod(Type t, int64_t n, int lanes, const std::string& name) {
  Buffer a = input("A", t, n), b = input("B", t, n);
  std::vector<Buffer> outs;
  for (const char* o : {"Q", "R", "Q4", "R4", "Qm3", "Rm3", "Q7"}) outs.push_back(output(o, t, n));
  Var i = Variable::make("i");
  Expr index = lanes == 1 ? Expr(i) : ramp(Expr(i) * lanes, lanes);
  Expr av = load(a, index), bv = load(b, index);
  auto c = [&](int64_t v) { return make_const(t.with_lanes(lanes), double(v)); };
  std::vector<Expr> values = {av / bv, av % bv, av / c(4), av % c(4), av / c(-3), av % c(-3), av / c(7)};
  std::vector<Stmt> stores;
  for (size_t k = 0; k < outs.size(); ++k) stores.push_back(store(outs[k], index, values[k]));
  std::vector<Buffer> args = {a, b};
  args.insert(args.end(), outs.begin(), outs.end());
  return {name, args, loop(i, 0, n / lanes, Seq::make(stores)), std::vector<std::vector<int64_t>>(args.size(), {n})};
}

/// Out[i] = IDX[i] < n ? A[IDX[i]] : -1, where IDX may hold wildly out-of-range indices: correct code
/// never reads them. Scalar (lanes 1, branches) or vector (masked gather).
inline LoweredFunc guarded_gather(int64_t n, int lanes, const std::string& name) {
  Buffer a = input("A", Float(32), n), idx = input("IDX", Int(64), n), out = output("Out", Float(32), n);
  Var i = Variable::make("i");
  Expr index = lanes == 1 ? Expr(i) : ramp(Expr(i) * lanes, lanes);
  Expr k = load(idx, index);
  Expr body = Select::make(k < i64(n), load(a, k), make_const(Float(32, lanes), -1.0));
  return {name, {a, idx, out}, loop(i, 0, n / lanes, store(out, index, body)), {{n}, {n}, {n}}};
}

/// Out[i*8 + l] = i*8 + l < valid ? A[i*8 + l] : 0 for i in 0..n/8, where A holds only `valid`
/// elements: the vector load must be masked.
inline LoweredFunc guarded_contiguous(int64_t n, int64_t valid, const std::string& name) {
  Buffer a = input("A", Float(32), valid), out = output("Out", Float(32), n);
  Var i = Variable::make("i");
  Expr index = ramp(Expr(i) * 8, 8);
  Expr body = Select::make(index < Broadcast::make(i64(valid), 8), load(a, index), make_const(Float(32, 8), 0.0));
  return {name, {a, out}, loop(i, 0, n / 8, store(out, index, body)), {{valid}, {n}}};
}

/// Out[lanes*i ...] = f(A[...]) for the math function f (pow uses A as base and 1.5 as exponent).
inline LoweredFunc math_op(const std::string& f, Type t, int64_t n, int lanes, const std::string& name) {
  Buffer a = input("A", t, n), out = output("Out", t, n);
  Var i = Variable::make("i");
  Expr index = lanes == 1 ? Expr(i) : ramp(Expr(i) * lanes, lanes);
  std::vector<Expr> args = {load(a, index)};
  if (f == "pow") args.push_back(make_const(t.with_lanes(lanes), 1.5));
  return {name, {a, out}, loop(i, 0, n / lanes, store(out, index, call(t.with_lanes(lanes), f, args))), {{n}, {n}}};
}

}  // namespace texc::llvm_test
