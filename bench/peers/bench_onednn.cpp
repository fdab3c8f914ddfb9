// oneDNN 2.6 (Debian libdnnl-dev, OpenMP runtime): matmul primitive and dnnl_sgemm on G1-G6;
// convolution forward inference on C1-C12 and, as a grouped convolution, on D1-D9; u8 x s8 -> u8
// convolution forward inference on Q2-Q12.
//
// Variants
//   gemm:   sgemm   dnnl_sgemm, row-major NN
//           matmul  matmul primitive, plain row-major (ab) A, B and C
//   conv, dwconv:
//           any       src/weights/dst format_tag::any; only the convolution primitive is timed,
//                     on data already in its preferred layouts (inputs and weights reordered once)
//           nchw_e2e  NCHW in and NCHW out: timed = reorder src NCHW->preferred, convolution,
//                     reorder dst preferred->NCHW (weights reordered once, untimed: they are constants)
//           plain     the primitive forced to NCHW src/dst and OIHW (GOIHW) weights
//   qconv:  int8_any       u8 src, s8 weights, u8 dst, output scale 2^-shift (the workload's shift),
//                          formats any; only the primitive is timed, on data reordered once from
//                          plain NCHW / OIHW into its preferred layouts (dst reordered back for the
//                          check only). Skipped, with one line on stderr, without AVX-512 VNNI.
//           int8_nchw_e2e  u8 NCHW in and out: timed = reorder src, convolution, reorder dst
//                          (weights reordered once, untimed)
// Threads: this oneDNN build uses OpenMP (DNNL_CPU_THREADING_RUNTIME == OMP), so the thread count
// is omp_set_num_threads(--threads), set before any primitive is created.
#include "bench/common/Harness.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

using namespace bench;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// "strides=a,b,c,d blocks=16c" for a memory descriptor: enough to tell nchw, nhwc, nChw16c apart.
static std::string layout(const dnnl::memory::desc &md) {
  const dnnl_memory_desc_t &d = md.data;
  if (d.format_kind != dnnl_blocked) return "non-blocked";
  std::ostringstream s;
  s << "strides=";
  for (int i = 0; i < d.ndims; ++i) s << (i ? "," : "") << d.format_desc.blocking.strides[i];
  if (d.format_desc.blocking.inner_nblks) {
    s << " blocks=";
    for (int i = 0; i < d.format_desc.blocking.inner_nblks; ++i)
      s << d.format_desc.blocking.inner_blks[i] << "dim" << d.format_desc.blocking.inner_idxs[i]
        << (i + 1 < d.format_desc.blocking.inner_nblks ? "," : "");
  }
  return s.str();
}

struct Ctx {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
};

static bool bench_gemm(const Options &o, Ctx &ctx, const Workload &w) {
  Floats A(w.M * w.K), B(w.K * w.N), C(w.M * w.N);
  fill_random(A, 1);
  fill_random(B, 2);
  auto check = [&] { return check_gemm(w, A.data(), B.data(), C.data()); };
  bool ok = true;

  ok &= measure(
      o, w, "onednn", "sgemm",
      [&] {
        dnnl_status_t st = dnnl_sgemm('N', 'N', w.M, w.N, w.K, 1.0f, A.data(), w.K, B.data(), w.N,
                                      0.0f, C.data(), w.N);
        if (st != dnnl_success) throw std::runtime_error("dnnl_sgemm failed");
      },
      check, "dnnl_sgemm row-major NN");

  std::fill(C.data(), C.data() + C.size(), 0.0f);
  dnnl::memory::desc a_md({w.M, w.K}, dt::f32, tag::ab), b_md({w.K, w.N}, dt::f32, tag::ab),
      c_md({w.M, w.N}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), ctx.eng);
  dnnl::matmul mm(pd);
  dnnl::memory a_m(a_md, ctx.eng, A.data()), b_m(b_md, ctx.eng, B.data()), c_m(c_md, ctx.eng, C.data());
  ok &= measure(
      o, w, "onednn", "matmul",
      [&] {
        mm.execute(ctx.strm, {{DNNL_ARG_SRC, a_m}, {DNNL_ARG_WEIGHTS, b_m}, {DNNL_ARG_DST, c_m}});
        ctx.strm.wait();
      },
      check, std::string("matmul primitive, plain row-major A/B/C; impl=") + pd.impl_info_str());
  return ok;
}

static bool bench_conv(const Options &o, Ctx &ctx, const Workload &w) {
  const bool dw = w.kind == Kind::DwConv;
  const int64_t ICg = dw ? 1 : w.IC;
  Floats in(w.IC * w.H * w.W), wt(w.OC * ICg * w.KH * w.KW), out(w.OC * w.OH() * w.OW());
  fill_random(in, 3);
  fill_random(wt, 4);
  auto check = [&] { return check_conv(w, in.data(), wt.data(), out.data()); };

  dnnl::memory::dims src_dims = {1, w.IC, w.H, w.W}, dst_dims = {1, w.OC, w.OH(), w.OW()};
  dnnl::memory::dims wt_dims = dw ? dnnl::memory::dims{w.OC, 1, 1, w.KH, w.KW}
                                  : dnnl::memory::dims{w.OC, w.IC, w.KH, w.KW};
  tag wt_plain = dw ? tag::goihw : tag::oihw;
  dnnl::memory::dims strides = {w.stride, w.stride}, pad = {w.pad, w.pad};

  dnnl::memory::desc src_nchw(src_dims, dt::f32, tag::nchw), dst_nchw(dst_dims, dt::f32, tag::nchw),
      wt_oihw(wt_dims, dt::f32, wt_plain);
  dnnl::memory src_user(src_nchw, ctx.eng, in.data()), dst_user(dst_nchw, ctx.eng, out.data()),
      wt_user(wt_oihw, ctx.eng, wt.data());

  auto make_pd = [&](tag src_tag, tag wt_tag, tag dst_tag) {
    dnnl::memory::desc s(src_dims, dt::f32, src_tag), k(wt_dims, dt::f32, wt_tag),
        d(dst_dims, dt::f32, dst_tag);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::convolution_direct, s, k, d, strides,
                                         pad, pad);
    return dnnl::convolution_forward::primitive_desc(desc, ctx.eng);
  };
  // Memory in the primitive's preferred layout, filled from `user` by a reorder when they differ.
  auto preferred = [&](const dnnl::memory::desc &md, dnnl::memory &user, bool fill) {
    if (md == user.get_desc()) return user;
    dnnl::memory m(md, ctx.eng);
    if (fill) {
      dnnl::reorder(user, m).execute(ctx.strm, user, m);
      ctx.strm.wait();
    }
    return m;
  };
  bool ok = true;

  // any: the primitive alone, in its preferred layouts.
  {
    auto pd = make_pd(tag::any, tag::any, tag::any);
    dnnl::convolution_forward conv(pd);
    dnnl::memory src = preferred(pd.src_desc(), src_user, true);
    dnnl::memory wts = preferred(pd.weights_desc(), wt_user, true);
    dnnl::memory dst = preferred(pd.dst_desc(), dst_user, false);
    bool dst_reorder = !(pd.dst_desc() == dst_nchw);
    std::string detail = std::string("format_tag::any, convolution primitive only; impl=") +
                         pd.impl_info_str() + "; src " + layout(pd.src_desc()) + "; dst " +
                         layout(pd.dst_desc());
    ok &= measure(
        o, w, "onednn", "any",
        [&] {
          conv.execute(ctx.strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wts}, {DNNL_ARG_DST, dst}});
          ctx.strm.wait();
        },
        [&] {
          if (dst_reorder) {  // untimed: only to read the result in NCHW
            dnnl::reorder(dst, dst_user).execute(ctx.strm, dst, dst_user);
            ctx.strm.wait();
          }
          return check();
        },
        detail);

    // nchw_e2e: NCHW in, NCHW out, the reorders timed with the primitive.
    std::fill(out.data(), out.data() + out.size(), 0.0f);
    bool src_reorder = !(pd.src_desc() == src_nchw);
    dnnl::reorder to_pref, from_pref;
    if (src_reorder) to_pref = dnnl::reorder(src_user, src);
    if (dst_reorder) from_pref = dnnl::reorder(dst, dst_user);
    ok &= measure(
        o, w, "onednn", "nchw_e2e",
        [&] {
          if (src_reorder) to_pref.execute(ctx.strm, src_user, src);
          conv.execute(ctx.strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wts}, {DNNL_ARG_DST, dst}});
          if (dst_reorder) from_pref.execute(ctx.strm, dst, dst_user);
          ctx.strm.wait();
        },
        check,
        std::string("NCHW in/out incl. src/dst reorders (weights reordered once, untimed); impl=") +
            pd.impl_info_str() + "; src " + layout(pd.src_desc()) + "; dst " + layout(pd.dst_desc()));
  }

  // plain: the primitive forced to NCHW / OIHW.
  {
    std::fill(out.data(), out.data() + out.size(), 0.0f);
    auto pd = make_pd(tag::nchw, wt_plain, tag::nchw);
    dnnl::convolution_forward conv(pd);
    ok &= measure(
        o, w, "onednn", "plain",
        [&] {
          conv.execute(ctx.strm,
                       {{DNNL_ARG_SRC, src_user}, {DNNL_ARG_WEIGHTS, wt_user}, {DNNL_ARG_DST, dst_user}});
          ctx.strm.wait();
        },
        check, std::string("primitive forced to nchw/oihw; impl=") + pd.impl_info_str());
  }
  return ok;
}

// Q2-Q12: u8 x s8 convolution, u8 output = saturate(round(sum * 2^-shift)) (check_qconv).
static bool bench_qconv(const Options &o, Ctx &ctx, const Workload &w) {
  U8s in(w.IC * w.H * w.W), out(w.OC * w.OH() * w.OW());
  S8s wt(w.OC * w.IC * w.KH * w.KW);
  fill_random(in, 3);
  fill_random(wt, 4);
  auto check = [&] { return check_qconv(w, in.data(), wt.data(), out.data()); };

  dnnl::memory::dims src_dims = {1, w.IC, w.H, w.W}, dst_dims = {1, w.OC, w.OH(), w.OW()},
                     wt_dims = {w.OC, w.IC, w.KH, w.KW};
  dnnl::memory::dims strides = {w.stride, w.stride}, pad = {w.pad, w.pad};
  dnnl::memory::desc src_nchw(src_dims, dt::u8, tag::nchw), dst_nchw(dst_dims, dt::u8, tag::nchw),
      wt_oihw(wt_dims, dt::s8, tag::oihw);
  dnnl::memory src_user(src_nchw, ctx.eng, in.data()), dst_user(dst_nchw, ctx.eng, out.data()),
      wt_user(wt_oihw, ctx.eng, wt.data());

  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      dnnl::memory::desc(src_dims, dt::u8, tag::any), dnnl::memory::desc(wt_dims, dt::s8, tag::any),
      dnnl::memory::desc(dst_dims, dt::u8, tag::any), strides, pad, pad);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {1.0f / float(int64_t(1) << w.shift)});
  dnnl::convolution_forward::primitive_desc pd(desc, attr, ctx.eng);
  dnnl::convolution_forward conv(pd);

  // Memory in the primitive's layout, filled from `user` by a reorder (untimed) when they differ.
  auto preferred = [&](const dnnl::memory::desc &md, dnnl::memory &user, bool fill) {
    if (md == user.get_desc()) return user;
    dnnl::memory m(md, ctx.eng);
    if (fill) {
      dnnl::reorder(user, m).execute(ctx.strm, user, m);
      ctx.strm.wait();
    }
    return m;
  };
  dnnl::memory src = preferred(pd.src_desc(), src_user, true);
  dnnl::memory wts = preferred(pd.weights_desc(), wt_user, true);
  dnnl::memory dst = preferred(pd.dst_desc(), dst_user, false);
  const bool src_reorder = !(pd.src_desc() == src_nchw), dst_reorder = !(pd.dst_desc() == dst_nchw);
  const std::string layouts = std::string("impl=") + pd.impl_info_str() + "; src " + layout(pd.src_desc()) +
                              "; weights " + layout(pd.weights_desc()) + "; dst " + layout(pd.dst_desc()) +
                              "; output scale 2^-" + std::to_string(w.shift);
  bool ok = true;

  ok &= measure(
      o, w, "onednn", "int8_any",
      [&] {
        conv.execute(ctx.strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wts}, {DNNL_ARG_DST, dst}});
        ctx.strm.wait();
      },
      [&] {
        if (dst_reorder) {  // untimed: only to read the result in NCHW
          dnnl::reorder(dst, dst_user).execute(ctx.strm, dst, dst_user);
          ctx.strm.wait();
        }
        return check();
      },
      "u8 x s8 -> u8, format_tag::any, convolution primitive only (src/weights reordered once from "
      "NCHW/OIHW, untimed); " + layouts);

  std::fill(out.data(), out.data() + out.size(), uint8_t(0));
  dnnl::reorder to_pref, from_pref;
  if (src_reorder) to_pref = dnnl::reorder(src_user, src);
  if (dst_reorder) from_pref = dnnl::reorder(dst, dst_user);
  ok &= measure(
      o, w, "onednn", "int8_nchw_e2e",
      [&] {
        if (src_reorder) to_pref.execute(ctx.strm, src_user, src);
        conv.execute(ctx.strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wts}, {DNNL_ARG_DST, dst}});
        if (dst_reorder) from_pref.execute(ctx.strm, dst, dst_user);
        ctx.strm.wait();
      },
      check,
      "u8 x s8 -> u8, u8 NCHW in/out incl. src/dst reorders (weights reordered once, untimed); " + layouts);
  return ok;
}

int main(int argc, char **argv) {
  Options o = parse_options(argc, argv, "onednn", {Kind::Gemm, Kind::Conv, Kind::DwConv, Kind::QConv});
  omp_set_num_threads(o.threads);  // oneDNN's OpenMP runtime: set before any primitive exists
  Ctx ctx;
  bool ok = true;
  const bool vnni = cpu_has_avx512_vnni();
  bool said_skipped = false;
  for (const Workload &w : o.workloads) {
    if (w.kind == Kind::QConv && !vnni) {
      if (!said_skipped) std::fprintf(stderr, "bench_onednn: %s\n", kQConvSkipped);
      said_skipped = true;
      continue;
    }
    try {
      ok &= w.kind == Kind::Gemm    ? bench_gemm(o, ctx, w)
            : w.kind == Kind::QConv ? bench_qconv(o, ctx, w)
                                    : bench_conv(o, ctx, w);
    } catch (const dnnl::error &e) {
      Measurement m;
      m.workload = w.name, m.peer = "onednn", m.variant = "setup", m.threads = o.threads;
      m.error = std::string("oneDNN: ") + e.what();
      report(o, w, m);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
