// The benchmark shapes of shared/spec/workloads.md (G1-G6, C1-C12, D1-D9) and their FLOP counts.
// Every bench_* executable takes its shapes from here, so texc and the peers run the same problems.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

enum class Kind { Gemm, Conv, DwConv };

const char *kind_name(Kind k);  // "gemm", "conv", "dwconv"

struct Workload {
  std::string name;  // "G1", "C7", "D3"
  Kind kind;
  // gemm: C[M,N] = A[M,K] * B[K,N], row-major.
  int64_t M = 0, N = 0, K = 0;
  // conv / dwconv: batch 1, input NCHW [1, IC, H, W], weights OIHW [OC, IC, KH, KW]
  // (depthwise: [C, 1, KH, KW], IC = OC = C), padding KH/2 on every side, square stride.
  int64_t H = 0, W = 0, IC = 0, OC = 0, KH = 0, KW = 0, stride = 1, pad = 0;

  int64_t OH() const { return (H + 2 * pad - KH) / stride + 1; }
  int64_t OW() const { return (W + 2 * pad - KW) / stride + 1; }
  // A multiply-add counts as 2 FLOPs.
  double flops() const;
  // e.g. "1024x1024x1024" or "56x56 64->128 k3 s2"
  std::string shape() const;
};

// All workloads, in the order of workloads.md.
const std::vector<Workload> &all_workloads();

// Parses "G1,C2,D3", "gemm,conv" (a kind selects all of its workloads) or "all".
// Unknown names throw std::invalid_argument.
std::vector<Workload> select_workloads(const std::string &list);

}  // namespace bench
