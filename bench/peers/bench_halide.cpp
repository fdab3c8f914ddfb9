// Halide 14 (Debian libhalide14-0-dev), JIT-compiled for the host, on G1-G6, C1-C12 and D1-D9.
// This process loads Halide's LLVM 14; it never links texc (LLVM 19).
//
// Variants
//   hand           a schedule written here (below, per operator): register tiles of
//                  2 x natural-vector-width lanes, vectorized by the natural vector width,
//                  parallel over the outermost tile loop.
//   mullapudi2016  the same algorithm scheduled by the Mullapudi2016 autoscheduler
//                  (libautoschedule_mullapudi2016.so loaded with Halide::load_plugin), given
//                  the exact input/output sizes as estimates and
//                  MachineParams(threads, 32 MiB last-level cache, balance 40).
// All inputs and outputs have constant bounds (ImageParam/output_buffer set_bounds), so Halide
// compiles for the fixed shape, as texc does. Layouts: gemm row-major; conv NCHW in and out.
// hand conv takes weights pre-packed [IC][KH][KW][OC] (packed once, untimed, like oneDNN's weight
// reorder); the autoscheduled conv reads OIHW. Both include the zero padding in the timed call.
// Threads: HL_NUM_THREADS=--threads, set before the first JIT call (Halide's thread pool reads it
// when it starts; the calling thread counts as one).
#include "bench/common/Harness.h"

#include <Halide.h>

#include <cstdlib>
#include <string>

using namespace bench;
using namespace Halide;

namespace {

struct Env {
  Target target;
  int vec = 8;          // natural vector width for float
  int threads = 1;
  bool mullapudi = false;
  std::string mullapudi_error;
};

MachineParams machine(const Env &env) { return MachineParams(env.threads, 32u << 20, 40.0f); }

std::string auto_detail(const Env &env) {
  return "autoscheduler=Mullapudi2016 machine_params=" + std::to_string(env.threads) + ",33554432,40";
}

// Fixes the bounds of a 2-4 dimensional dense buffer whose first dimension is innermost.
void dense_bounds(OutputImageParam p, std::vector<int64_t> extents) {
  int64_t stride = 1;
  for (size_t d = 0; d < extents.size(); ++d) {
    p.dim(int(d)).set_bounds(0, int(extents[d])).set_stride(int(stride)).set_estimate(0, int(extents[d]));
    stride *= extents[d];
  }
}

void compile(Pipeline &p, const Env &env, bool autoschedule) {
  if (autoschedule) p.auto_schedule("Mullapudi2016", env.target, machine(env));
  p.compile_jit(env.target);
}

// ---- gemm: C[i][j] = sum_k A[i][k] * B[k][j], row-major; Halide's dims are (j, i) -------------

bool bench_gemm(const Options &o, const Env &env, const Workload &w) {
  Floats A(w.M * w.K), B(w.K * w.N), C(w.M * w.N);
  fill_random(A, 1);
  fill_random(B, 2);
  Buffer<float> a_buf(A.data(), int(w.K), int(w.M)), b_buf(B.data(), int(w.N), int(w.K)),
      c_buf(C.data(), int(w.N), int(w.M));
  auto check = [&] { return check_gemm(w, A.data(), B.data(), C.data()); };
  bool ok = true;

  for (bool autoschedule : {false, true}) {
    std::string variant = autoschedule ? "mullapudi2016" : "hand";
    if (!o.want_variant(variant)) continue;
    ImageParam a(Float(32), 2, "A"), b(Float(32), 2, "B");
    Var i("i"), j("j");
    RDom r(0, int(w.K), "r");
    Func prod("prod"), c("C"), bpack("bpack");
    // Hand schedule, large N: B repacked into column panels [N/NR][K][NR] (inside the timed call),
    // so a tile's B loads are contiguous instead of one row stride (N floats) apart.
    const int NR = 2 * env.vec;
    const bool pack = !autoschedule && w.N % NR == 0 && w.N >= 1024;
    Var jj("jj"), kk("kk"), jb("jb");
    prod(j, i) = 0.0f;
    if (pack) {
      bpack(jj, kk, jb) = b(jb * NR + jj, kk);
      prod(j, i) += a(r, i) * bpack(j % NR, r, j / NR);
    } else {
      prod(j, i) += a(r, i) * b(j, r);
    }
    c(j, i) = prod(j, i);
    dense_bounds(a, {w.K, w.M});
    dense_bounds(b, {w.N, w.K});
    dense_bounds(c.output_buffer(), {w.N, w.M});
    c.set_estimates({{0, int(w.N)}, {0, int(w.M)}});

    std::string detail;
    if (!autoschedule) {
      // Register tile MR rows x NR columns (2 vectors): 12x32 with AVX-512 (24 accumulators of
      // 32 registers), 6x16 with AVX2. The reduction runs over all of K inside the tile, so the
      // accumulators stay in registers. A task is TB row tiles: its A rows are reused by every
      // column tile, and each B panel (K x NR) by the TB row tiles below it.
      const int V = env.vec, MR = V >= 16 ? 12 : 6;
      const int TB = 4;
      Var jt("jt"), it("it"), ji("ji"), ii("ii"), ito("ito"), iti("iti");
      c.tile(j, i, jt, it, ji, ii, NR, MR)
          .split(it, ito, iti, TB, TailStrategy::GuardWithIf)
          .reorder(ji, ii, iti, jt, ito)
          .vectorize(ji, V)
          .unroll(ji)
          .unroll(ii)
          .parallel(ito);
      prod.compute_at(c, iti).vectorize(j, V).unroll(j).unroll(i);
      prod.update().reorder(j, i, r).vectorize(j, V).unroll(j).unroll(i);
      if (pack) bpack.compute_root().vectorize(jj, V).parallel(jb);
      detail = "register tile " + std::to_string(MR) + "x" + std::to_string(NR) + ", task " +
               std::to_string(MR * TB) + " rows, " + (pack ? "B packed in NR-column panels" : "no packing") + "; " + env.target.to_string();
    } else {
      if (!env.mullapudi) {
        Measurement m;
        m.workload = w.name, m.peer = "halide", m.variant = variant, m.threads = o.threads;
        m.error = env.mullapudi_error;
        report(o, w, m);
        ok = false;
        continue;
      }
      detail = auto_detail(env);
    }
    Pipeline p(c);
    compile(p, env, autoschedule);
    a.set(a_buf);
    b.set(b_buf);
    std::fill(C.data(), C.data() + C.size(), 0.0f);
    ok &= measure(o, w, "halide", variant, [&] { p.realize(c_buf); }, check, detail);
  }
  return ok;
}

// ---- conv2d: NCHW in (x, y, c), OIHW weights, NCHW out (x, y, oc) -----------------------------

bool bench_conv(const Options &o, const Env &env, const Workload &w) {
  const int64_t OH = w.OH(), OW = w.OW(), K = w.KH, S = w.stride, P = w.pad;
  Floats in(w.IC * w.H * w.W), wt(w.OC * w.IC * K * K), out(w.OC * OH * OW);
  fill_random(in, 3);
  fill_random(wt, 4);
  // Weights packed [ic][kh][kw][oc] for the hand schedule (untimed, like a weight reorder).
  Floats packed(wt.size());
  for (int64_t oc = 0; oc < w.OC; ++oc)
    for (int64_t ic = 0; ic < w.IC; ++ic)
      for (int64_t kh = 0; kh < K; ++kh)
        for (int64_t kw = 0; kw < K; ++kw)
          packed[((ic * K + kh) * K + kw) * w.OC + oc] = wt[((oc * w.IC + ic) * K + kh) * K + kw];
  Buffer<float> in_buf(in.data(), int(w.W), int(w.H), int(w.IC)),
      out_buf(out.data(), int(OW), int(OH), int(w.OC)),
      oihw_buf(wt.data(), int(K), int(K), int(w.IC), int(w.OC)),
      packed_buf(packed.data(), int(w.OC), int(K), int(K), int(w.IC));
  auto check = [&] { return check_conv(w, in.data(), wt.data(), out.data()); };
  bool ok = true;

  for (bool autoschedule : {false, true}) {
    std::string variant = autoschedule ? "mullapudi2016" : "hand";
    if (!o.want_variant(variant)) continue;
    if (autoschedule && !env.mullapudi) {
      Measurement m;
      m.workload = w.name, m.peer = "halide", m.variant = variant, m.threads = o.threads;
      m.error = env.mullapudi_error;
      report(o, w, m);
      ok = false;
      continue;
    }
    ImageParam input(Float(32), 3, "input"), weights(Float(32), 4, "weights");
    dense_bounds(input, {w.W, w.H, w.IC});
    Var x("x"), y("y"), c("c"), oc("oc");
    Func bounded = BoundaryConditions::constant_exterior(input, 0.0f);
    Func padded("padded"), conv("conv"), output("output");
    padded(x, y, c) = bounded(x, y, c);
    RDom r(0, int(K), 0, int(K), 0, int(w.IC), "r");
    Expr ix = x * int(S) + r.x - int(P), iy = y * int(S) + r.y - int(P);
    std::string detail;
    if (!autoschedule) {
      dense_bounds(weights, {w.OC, K, K, w.IC});
      conv(oc, x, y) = 0.0f;
      conv(oc, x, y) += weights(oc, r.x, r.y, r.z) * padded(ix, iy, r.z);
      output(x, y, oc) = conv(oc, x, y);
      // Register tile: XB output columns x OCB output channels (vectors along oc, the input
      // broadcast), reduction (kw, kh, ic) inside the tile. 7 x 2V: 14 accumulators (7 x 4V, 28
      // accumulators, spills with 32 registers and measured slower). Every OW of workloads.md is
      // a multiple of 7. Tasks: (output row, oc block).
      const int V = env.vec, OCB = 2 * V, XB = std::min<int>(7, int(OW));
      Var xo("xo"), xi("xi"), oco("oco"), oci("oci"), t("t");
      output.split(oc, oco, oci, OCB)
          .split(x, xo, xi, XB)
          .reorder(xi, oci, xo, y, oco)
          .unroll(xi)
          .fuse(y, oco, t)
          .parallel(t);
      conv.compute_at(output, xo).vectorize(oc, V).unroll(oc).unroll(x);
      conv.update().reorder(oc, x, r.x, r.y, r.z).vectorize(oc, V).unroll(oc).unroll(x);
      padded.compute_root().parallel(c).vectorize(x, V);
      detail = "direct conv, weights packed [ic][kh][kw][oc], register tile " + std::to_string(XB) +
               " ow x " + std::to_string(OCB) + " oc, zero-padded input copy; " + env.target.to_string();
    } else {
      dense_bounds(weights, {K, K, w.IC, w.OC});
      conv(x, y, oc) = 0.0f;
      conv(x, y, oc) += weights(r.x, r.y, r.z, oc) * padded(ix, iy, r.z);
      output(x, y, oc) = conv(x, y, oc);
      detail = auto_detail(env) + ", NCHW in/out, OIHW weights";
    }
    dense_bounds(output.output_buffer(), {OW, OH, w.OC});
    output.set_estimates({{0, int(OW)}, {0, int(OH)}, {0, int(w.OC)}});
    Pipeline p(output);
    compile(p, env, autoschedule);
    input.set(in_buf);
    weights.set(autoschedule ? oihw_buf : packed_buf);
    std::fill(out.data(), out.data() + out.size(), 0.0f);
    ok &= measure(o, w, "halide", variant, [&] { p.realize(out_buf); }, check, detail);
  }
  return ok;
}

// ---- depthwise conv2d: NCHW in and out, weights [C][1][KH][KW] = Halide (kx, ky, c) -----------

bool bench_dwconv(const Options &o, const Env &env, const Workload &w) {
  const int64_t OH = w.OH(), OW = w.OW(), K = w.KH, S = w.stride, P = w.pad, C = w.OC;
  Floats in(C * w.H * w.W), wt(C * K * K), out(C * OH * OW);
  fill_random(in, 3);
  fill_random(wt, 4);
  Buffer<float> in_buf(in.data(), int(w.W), int(w.H), int(C)),
      out_buf(out.data(), int(OW), int(OH), int(C)), wt_buf(wt.data(), int(K), int(K), int(C));
  auto check = [&] { return check_conv(w, in.data(), wt.data(), out.data()); };
  bool ok = true;

  for (bool autoschedule : {false, true}) {
    std::string variant = autoschedule ? "mullapudi2016" : "hand";
    if (!o.want_variant(variant)) continue;
    if (autoschedule && !env.mullapudi) {
      Measurement m;
      m.workload = w.name, m.peer = "halide", m.variant = variant, m.threads = o.threads;
      m.error = env.mullapudi_error;
      report(o, w, m);
      ok = false;
      continue;
    }
    ImageParam input(Float(32), 3, "input"), weights(Float(32), 3, "weights");
    dense_bounds(input, {w.W, w.H, C});
    dense_bounds(weights, {K, K, C});
    Var x("x"), y("y"), c("c");
    Func bounded = BoundaryConditions::constant_exterior(input, 0.0f);
    Func padded("padded"), output("output");
    padded(x, y, c) = bounded(x, y, c);
    std::string detail;
    if (!autoschedule) {
      // The 3x3 taps unrolled; vectors along the output row; one task per channel, which first
      // copies its zero-padded input plane, split by column phase (x mod stride) so that every
      // tap reads a dense vector: phase(x, q, y) = padded(x * S + q - P, y), and tap kx reads
      // phase(ox + kx / S, kx % S). (Stride 1: one phase, the padded plane itself.)
      Func phase("phase");
      Var q("q");
      phase(x, q, y, c) = padded(x * int(S) + q - int(P), y, c);
      Expr e = 0.0f;
      for (int ky = 0; ky < K; ++ky)
        for (int kx = 0; kx < K; ++kx)
          e += weights(kx, ky, c) * phase(x + kx / int(S), kx % int(S), y * int(S) + ky - int(P), c);
      output(x, y, c) = e;
      const int lanes = OW >= env.vec ? env.vec : OW >= 8 ? 8 : 4;
      // Rows unrolled by a divisor of OH: a non-dividing (shifted-inwards) row split crashed the
      // JIT-compiled code for D8 (OH 7, stride 2) with Halide 14.
      const int RY = OH % 4 == 0 ? 4 : OH % 2 == 0 ? 2 : 1;
      Var yo("yo"), yi("yi");
      output.split(y, yo, yi, RY).vectorize(x, lanes).unroll(yi).reorder(x, yi, yo, c).parallel(c);
      phase.compute_at(output, c).vectorize(x, lanes);
      if (S > 1) phase.unroll(q);
      detail = "taps unrolled, vectors of " + std::to_string(lanes) + " along ow, " +
               std::to_string(RY) + " rows unrolled, padded plane per channel split in " +
               std::to_string(S) + " column phase(s); " + env.target.to_string();
    } else {
      RDom r(0, int(K), 0, int(K), "r");
      Func conv("conv");
      conv(x, y, c) = 0.0f;
      conv(x, y, c) += weights(r.x, r.y, c) * padded(x * int(S) + r.x - int(P), y * int(S) + r.y - int(P), c);
      output(x, y, c) = conv(x, y, c);
      detail = auto_detail(env) + ", NCHW in/out";
    }
    dense_bounds(output.output_buffer(), {OW, OH, C});
    output.set_estimates({{0, int(OW)}, {0, int(OH)}, {0, int(C)}});
    Pipeline p(output);
    compile(p, env, autoschedule);
    input.set(in_buf);
    weights.set(wt_buf);
    std::fill(out.data(), out.data() + out.size(), 0.0f);
    ok &= measure(o, w, "halide", variant, [&] { p.realize(out_buf); }, check, detail);
  }
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  Options o = parse_options(argc, argv, "halide", {Kind::Gemm, Kind::Conv, Kind::DwConv});
  // Before anything starts Halide's thread pool.
  setenv("HL_NUM_THREADS", std::to_string(o.threads).c_str(), 1);
  Env env;
  env.target = get_jit_target_from_environment();
  env.vec = env.target.natural_vector_size<float>();
  env.threads = o.threads;
#ifdef TEXC_HALIDE_MULLAPUDI
  try {
    load_plugin(TEXC_HALIDE_MULLAPUDI);
    env.mullapudi = true;
  } catch (const std::exception &e) {
    env.mullapudi_error = std::string("cannot load ") + TEXC_HALIDE_MULLAPUDI + ": " + e.what();
  }
#else
  env.mullapudi_error = "libautoschedule_mullapudi2016.so was not found at configure time";
#endif
  bool ok = true;
  for (const Workload &w : o.workloads) {
    try {
      switch (w.kind) {
      case Kind::Gemm: ok &= bench_gemm(o, env, w); break;
      case Kind::Conv: ok &= bench_conv(o, env, w); break;
      case Kind::DwConv: ok &= bench_dwconv(o, env, w); break;
      }
    } catch (const Halide::Error &e) {
      Measurement m;
      m.workload = w.name, m.peer = "halide", m.variant = "setup", m.threads = o.threads;
      m.error = std::string("Halide: ") + e.what();
      report(o, w, m);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
