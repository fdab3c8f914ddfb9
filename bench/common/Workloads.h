// The benchmark shapes of docs/workloads.md (G1-G6, C1-C12, D1-D9) and their FLOP counts,
// and Q2-Q12: the convolutions C2-C12 quantized (u8 activations x s8 weights -> u8, issue 14).
// Every bench_* executable takes its shapes from here, so texc and the peers run the same problems.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

enum class Kind { Gemm, Conv, DwConv, QConv };

const char *kind_name(Kind k);  // "gemm", "conv", "dwconv", "qconv"

struct Workload {
  std::string name;  // "G1", "C7", "D3", "Q7"
  Kind kind;
  // gemm: C[M,N] = A[M,K] * B[K,N], row-major.
  int64_t M = 0, N = 0, K = 0;
  // conv / dwconv: batch 1, input NCHW [1, IC, H, W], weights OIHW [OC, IC, KH, KW]
  // (depthwise: [C, 1, KH, KW], IC = OC = C), padding KH/2 on every side, square stride.
  int64_t H = 0, W = 0, IC = 0, OC = 0, KH = 0, KW = 0, stride = 1, pad = 0;
  // qconv: the shape of the conv of the same number (Q7 = C7); u8 input NCHW, s8 weights OIHW,
  // u8 output = clip(sum >> shift, 0, 255), the sum exact in 32-bit integers. See qconv_shift.
  int64_t shift = 0;

  int64_t OH() const { return (H + 2 * pad - KH) / stride + 1; }
  int64_t OW() const { return (W + 2 * pad - KW) / stride + 1; }
  // A multiply-add counts as 2 FLOPs.
  double flops() const;
  // e.g. "1024x1024x1024", "56x56 64->128 k3 s2" or (qconv) "56x56 64->128 k3 s2 >>11"
  std::string shape() const;
};

// All workloads, in the order of workloads.md, then Q2-Q12.
const std::vector<Workload> &all_workloads();

// The requantization shift of a qconv workload: with the benchmark's data (u8 uniform in [0, 255],
// s8 uniform in [-128, 127], independent), a sum of R = IC*KH*KW products has a standard deviation
// of about sigma = 10890 * sqrt(R); shift = round(log2(sigma / 100)) puts one sigma at 85-128 in the
// output, so the positive sums spread over 0..255: 35-49% of the outputs of Q2-Q12 land in 1..254,
// at most 1% clip at 255 and the negative sums (51-65%: their mean is -64 R) clip at 0.
// Q3 (R = 64): 10, Q2 (R = 576): 11, Q12 (R = 4608): 13.
int64_t qconv_shift(int64_t reduction);

// Parses "G1,C2,D3", "gemm,conv,qconv" (a kind selects all of its workloads) or "all".
// Unknown names throw std::invalid_argument.
std::vector<Workload> select_workloads(const std::string &list);

}  // namespace bench
