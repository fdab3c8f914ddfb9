// cuDNN on the convolution workloads (C1-C12) and the depthwise ones (D1-D9, as grouped
// convolutions: groups = C, filter [C, 1, 3, 3]), fp32, batch 1, on CUDA device 0.
//
// Variant `nchw`: cudnnConvolutionForward on NCHW input, KCRS (OIHW) filter and NCHW output -- the
// layouts texc and the CPU peers use -- cross-correlation, padding K/2 (depthwise 1), the
// workload's stride. The algorithm is the fastest one cudnnFindConvolutionForwardAlgorithm measures
// on this device (cuDNN 9 keeps that legacy API, mapped onto its graph engine) among those with
// CUDNN_FMA_MATH, i.e. fp32 arithmetic without TF32 tensor cores (TF32 would not pass the 1e-4
// check); the search and the workspace allocation are untimed set-up, as oneDNN's primitive
// creation is for the CPU. The timed call is cudnnConvolutionForward alone (CUDA events:
// CudaHarness.h); the output is downloaded and checked against the float64 reference.
// Variant `tf32` (C1-C12, not the depthwise ones): the same with CUDNN_TENSOR_OP_MATH, the fastest
// algorithm cuDNN finds with the TF32 tensor cores allowed, checked with kTf32Tolerance: the peer
// of texc's nn.conv2d with CVG_TC=1.
// Without a CUDA device: exit 2, "bench_cudnn: no CUDA device: ...".
#include "bench/cuda/CudaHarness.h"

#include <cudnn.h>

#include <string>
#include <vector>

using namespace bench;

namespace {

void cudnn_check(cudnnStatus_t s, const char *what) {
  if (s != CUDNN_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(s));
}

const char *algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
  case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
  case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
  case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
  case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
  default: return "?";
  }
}

// The descriptors of one workload, destroyed with it.
struct Convolution {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

  explicit Convolution(const Workload &wl) {
    const bool dw = wl.kind == Kind::DwConv;
    const int groups = dw ? int(wl.IC) : 1;
    cudnn_check(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    cudnn_check(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    cudnn_check(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    cudnn_check(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
    cudnn_check(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, int(wl.IC), int(wl.H), int(wl.W)),
                "cudnnSetTensor4dDescriptor(x)");
    cudnn_check(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(wl.OC), int(wl.IC) / groups,
                                           int(wl.KH), int(wl.KW)),
                "cudnnSetFilter4dDescriptor");
    cudnn_check(cudnnSetConvolution2dDescriptor(conv, int(wl.pad), int(wl.pad), int(wl.stride), int(wl.stride), 1, 1,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    cudnn_check(cudnnSetConvolutionGroupCount(conv, groups), "cudnnSetConvolutionGroupCount");
    cudnn_check(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
    int n = 0, c = 0, h = 0, ww = 0;
    cudnn_check(cudnnGetConvolution2dForwardOutputDim(conv, x, w, &n, &c, &h, &ww), "cudnnGetConvolution2dForwardOutputDim");
    if (n != 1 || c != wl.OC || h != wl.OH() || ww != wl.OW())
      throw std::runtime_error("cuDNN's output shape differs from the workload's");
    cudnn_check(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, c, h, ww),
                "cudnnSetTensor4dDescriptor(y)");
  }
  ~Convolution() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
  }
};

// The workload's convolution with the fastest algorithm cudnnFindConvolutionForwardAlgorithm measures
// under `math` (CUDNN_FMA_MATH: fp32 arithmetic; CUDNN_TENSOR_OP_MATH: TF32 tensor cores allowed),
// timed, checked with `tolerance`, and reported as variant `variant`. False when it failed.
bool measure_convolution(const Options &o, const Workload &wl, cudnnHandle_t handle, const std::string &variant,
                         cudnnMathType_t math, double tolerance, const std::string &version, const std::string &device) {
  const bool dw = wl.kind == Kind::DwConv;
  Floats in(wl.IC * wl.H * wl.W), wt(wl.OC * (dw ? 1 : wl.IC) * wl.KH * wl.KW), out(wl.OC * wl.OH() * wl.OW());
  fill_random(in, 3);
  fill_random(wt, 4);
  try {
    Convolution cd(wl);
    cudnn_check(cudnnSetConvolutionMathType(cd.conv, math), "cudnnSetConvolutionMathType");
    DeviceFloats dIn(in.size()), dWt(wt.size()), dOut(out.size());
    dIn.upload(in);
    dWt.upload(wt);
    int max_algos = 0;
    cudnn_check(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max_algos), "cudnnGetConvolutionForwardAlgorithmMaxCount");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(size_t(std::max(max_algos, 1)));
    int found = 0;
    cudnn_check(cudnnFindConvolutionForwardAlgorithm(handle, cd.x, cd.w, cd.conv, cd.y, int(perf.size()), &found,
                                                     perf.data()),
                "cudnnFindConvolutionForwardAlgorithm");
    // Results come fastest first. Under FMA math: the fastest with FMA math; failing that (should
    // cuDNN report the descriptor's math type otherwise), the fastest without tensor-op math --
    // TF32 there would show as a failed check, never as a figure. With tensor-op math: the fastest.
    const bool fma = math == CUDNN_FMA_MATH;
    const cudnnConvolutionFwdAlgoPerf_t *best = nullptr;
    for (int i = 0; i < found && !best; ++i)
      if (perf[size_t(i)].status == CUDNN_STATUS_SUCCESS && (!fma || perf[size_t(i)].mathType == CUDNN_FMA_MATH))
        best = &perf[size_t(i)];
    for (int i = 0; i < found && !best && fma; ++i)
      if (perf[size_t(i)].status == CUDNN_STATUS_SUCCESS && perf[size_t(i)].mathType != CUDNN_TENSOR_OP_MATH &&
          perf[size_t(i)].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
        best = &perf[size_t(i)];
    if (!best) throw std::runtime_error("cudnnFindConvolutionForwardAlgorithm found no algorithm for this math type");
    cudnn_check(cudnnSetConvolutionMathType(cd.conv, best->mathType), "cudnnSetConvolutionMathType");
    void *workspace = nullptr;
    if (best->memory) cuda_check(cudaMalloc(&workspace, best->memory), "cudaMalloc(workspace)");
    const float alpha = 1.0f, beta = 0.0f;
    const char *math_name = best->mathType == CUDNN_FMA_MATH         ? ", FMA math"
                            : best->mathType == CUDNN_TENSOR_OP_MATH ? ", tensor-op math (TF32)"
                                                                     : ", default math";
    std::string detail = "cudnnConvolutionForward NCHW/KCRS, " + std::string(dw ? "groups=C, " : "") + "algo " +
                         algo_name(best->algo) + math_name + " (the fastest of " + std::to_string(found) +
                         " measured by cudnnFindConvolutionForwardAlgorithm), workspace " +
                         std::to_string(best->memory) + " bytes; " + version + "; " + device;
    cudnnConvolutionFwdAlgo_t algo = best->algo;
    size_t workspace_bytes = best->memory;
    bool ok = measure_gpu(
        o, wl, "cudnn", variant,
        [&] {
          cudnn_check(cudnnConvolutionForward(handle, &alpha, cd.x, dIn.data(), cd.w, dWt.data(), cd.conv, algo,
                                              workspace, workspace_bytes, &beta, cd.y, dOut.data()),
                      "cudnnConvolutionForward");
        },
        [&] {
          dOut.download(out);
          return check_conv(wl, in.data(), wt.data(), out.data(), tolerance);
        },
        detail);
    cudaFree(workspace);
    return ok;
  } catch (const std::exception &e) {  // set-up: descriptors, device memory, the search
    Measurement failed;
    failed.workload = wl.name, failed.peer = "cudnn", failed.variant = variant, failed.threads = o.threads;
    failed.error = e.what();
    report(o, wl, failed);
    return false;
  }
}

}  // namespace

int main(int argc, char **argv) {
  Options o = parse_options(argc, argv, "cudnn", {Kind::Conv, Kind::DwConv});
  std::string device = require_cuda_device("cudnn");
  cudnnHandle_t handle = nullptr;
  if (cudnnStatus_t s = cudnnCreate(&handle); s != CUDNN_STATUS_SUCCESS) {
    std::fprintf(stderr, "bench_cudnn: cudnnCreate failed: %s\n", cudnnGetErrorString(s));
    return 2;
  }
  std::string version = "cuDNN " + std::to_string(cudnnGetVersion());
  bool ok = true;
  for (const Workload &wl : o.workloads) {
    ok &= measure_convolution(o, wl, handle, "nchw", CUDNN_FMA_MATH, kTolerance, version, device);
    if (wl.kind == Kind::Conv)  // the peer of texc's nn.conv2d on the TF32 tensor cores (CVG_TC=1)
      ok &= measure_convolution(o, wl, handle, "tf32", CUDNN_TENSOR_OP_MATH, kTf32Tolerance, version, device);
  }
  cudnnDestroy(handle);
  return ok ? 0 : 1;
}
