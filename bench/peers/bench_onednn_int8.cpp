// oneDNN 2.6 int8 dense peer of bench/int8_cpu.tex's dense_u8s8_vnni (standalone; not part of
// run_bench.py): a u8 x s8 matmul (256 x 1024 x 1024) with u8 output scaled by 1/4096 (texc's
// `>> 12` and clip), weights format `any` (the primitive's preferred blocked layout; prepared once,
// untimed), 1 thread. Prints the median of 20 timed calls after 3 warm-up calls, and GOP/s (a
// multiply-add = 2). The int8 convolutions are measured, and checked, by bench_onednn (variants
// int8_any, int8_nchw_e2e of the qconv workloads Q2-Q12) in bench/run_bench.py.
//   g++ -O2 -fopenmp bench/peers/bench_onednn_int8.cpp -ldnnl -o bench_onednn_int8 && taskset -c 0 ./bench_onednn_int8
#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unordered_map>
#include <vector>

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

static double median_ms(dnnl::stream& s, dnnl::primitive& p, std::unordered_map<int, dnnl::memory>& args) {
  for (int i = 0; i < 3; ++i) p.execute(s, args);
  s.wait();
  std::vector<double> t;
  for (int i = 0; i < 20; ++i) {
    auto a = std::chrono::steady_clock::now();
    p.execute(s, args);
    s.wait();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void matmul(dnnl::engine& eng, dnnl::stream& s, int M, int N, int K) {
  dnnl::memory::desc a({M, K}, dt::u8, tag::ab), b({K, N}, dt::s8, tag::any), c({M, N}, dt::u8, tag::ab);
  dnnl::matmul::desc d(a, b, c);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {1.f / 4096});
  dnnl::matmul::primitive_desc pd(d, attr, eng);
  dnnl::memory ma(pd.src_desc(), eng), mb(pd.weights_desc(), eng), mc(pd.dst_desc(), eng);
  std::fill_n(static_cast<uint8_t*>(ma.get_data_handle()), pd.src_desc().get_size(), 100);
  std::fill_n(static_cast<int8_t*>(mb.get_data_handle()), pd.weights_desc().get_size(), 3);
  dnnl::matmul p(pd);
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
  double ms_ = median_ms(s, p, args);
  std::printf("dense    onednn u8s8 matmul %8.3f ms  %7.1f GOP/s  (%s)\n", ms_, 2.0 * M * N * K / ms_ * 1e-6,
              pd.impl_info_str());
}

int main() {
  omp_set_num_threads(1);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  matmul(eng, s, 256, 1024, 1024);
  return 0;
}
