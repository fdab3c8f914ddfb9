// cuBLAS on the matrix-product workloads (G1-G6) on CUDA device 0.
//
// Variants (the first two fp32 arithmetic, no TF32: the math mode is CUBLAS_DEFAULT_MATH, under
// which cuBLAS does not use TF32 tensor cores for fp32 data):
//   sgemm        cublasSgemm
//   gemmex       cublasGemmEx, CUDA_R_32F in and out, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT
//   gemmex_tf32  the same with CUBLAS_COMPUTE_32F_FAST_TF32 (the tensor cores, operands rounded to
//                TF32; checked with kTf32Tolerance): the peer of texc's MMG_TC=1
//   gemmex_fp16  A and B in CUDA_R_16F (the inputs rounded to half on the host), C in CUDA_R_32F,
//                CUBLAS_COMPUTE_32F (f16 tensor cores, f32 accumulation; checked against the
//                product of the rounded inputs): the peer of texc's linalg.matmul_f16
//   gemmex_bf16  the same with A and B in CUDA_R_16BF (rounded to bfloat16): the peer of texc's
//                linalg.matmul_bf16
// Row-major C[M,N] = A[M,K]·B[K,N] is the column-major product C^T = B^T·A^T: no transposes, no
// copies. The timed call is the cuBLAS call alone, data already on the device (CUDA events:
// CudaHarness.h); the output is downloaded and checked against the float64 reference.
// Without a CUDA device: exit 2, "bench_cublas: no CUDA device: ...".
#include "bench/cuda/CudaHarness.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

using namespace bench;

namespace {

void cublas_check(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}

}  // namespace

int main(int argc, char **argv) {
  Options o = parse_options(argc, argv, "cublas", {Kind::Gemm});
  std::string device = require_cuda_device("cublas");
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "bench_cublas: cublasCreate failed\n");
    return 2;
  }
  cublas_check(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  int version = 0;
  cublasGetVersion(handle, &version);
  std::string detail = "cuBLAS " + std::to_string(version) + ", CUBLAS_DEFAULT_MATH (fp32, no TF32); " + device;
  bool ok = true;
  for (const Workload &w : o.workloads) {
    Floats A(w.M * w.K), B(w.K * w.N), C(w.M * w.N);
    fill_random(A, 1);
    fill_random(B, 2);
    try {
      DeviceFloats dA(A.size()), dB(B.size()), dC(C.size());
      dA.upload(A);
      dB.upload(B);
      const float alpha = 1.0f, beta = 0.0f;
      int m = int(w.M), n = int(w.N), k = int(w.K);
      auto check = [&] {
        dC.download(C);
        return check_gemm(w, A.data(), B.data(), C.data());
      };
      ok &= measure_gpu(
          o, w, "cublas", "sgemm",
          [&] {
            cublas_check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, dB.data(), n, dA.data(), k,
                                     &beta, dC.data(), n),
                         "cublasSgemm");
          },
          check, "cublasSgemm; " + detail);
      cuda_check(cudaMemset(dC.data(), 0, size_t(C.size()) * sizeof(float)), "cudaMemset");
      ok &= measure_gpu(
          o, w, "cublas", "gemmex",
          [&] {
            cublas_check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, dB.data(), CUDA_R_32F, n,
                                      dA.data(), CUDA_R_32F, k, &beta, dC.data(), CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx");
          },
          check, "cublasGemmEx CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT; " + detail);
      cuda_check(cudaMemset(dC.data(), 0, size_t(C.size()) * sizeof(float)), "cudaMemset");
      ok &= measure_gpu(
          o, w, "cublas", "gemmex_tf32",
          [&] {
            cublas_check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, dB.data(), CUDA_R_32F, n,
                                      dA.data(), CUDA_R_32F, k, &beta, dC.data(), CUDA_R_32F, n,
                                      CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx");
          },
          [&] {
            dC.download(C);
            return check_gemm(w, A.data(), B.data(), C.data(), kTf32Tolerance);
          },
          "cublasGemmEx CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores), CUBLAS_GEMM_DEFAULT; " + detail);
      // 16-bit operands (f16, bf16): the inputs rounded to T, the reference their exact product
      auto gemm_16bit = [&]<typename T>(const char* variant, cudaDataType type, const char* type_name, T (*narrow)(float),
                                        float (*widen)(T)) {
        std::vector<T> hA(A.size()), hB(B.size());
        Floats rA(A.size()), rB(B.size());
        for (size_t i = 0; i < A.size(); ++i) hA[i] = narrow(A[i]), rA[i] = widen(hA[i]);
        for (size_t i = 0; i < B.size(); ++i) hB[i] = narrow(B[i]), rB[i] = widen(hB[i]);
        DeviceFloats dhA((int64_t(hA.size()) + 1) / 2), dhB((int64_t(hB.size()) + 1) / 2);  // room for the 16-bit values
        cuda_check(cudaMemcpy(dhA.data(), hA.data(), hA.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
        cuda_check(cudaMemcpy(dhB.data(), hB.data(), hB.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
        cuda_check(cudaMemset(dC.data(), 0, size_t(C.size()) * sizeof(float)), "cudaMemset");
        ok &= measure_gpu(
            o, w, "cublas", variant,
            [&] {
              cublas_check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, dhB.data(), type, n, dhA.data(),
                                        type, k, &beta, dC.data(), CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                           "cublasGemmEx");
            },
            [&] {
              dC.download(C);
              return check_gemm(w, rA.data(), rB.data(), C.data());
            },
            std::string("cublasGemmEx ") + type_name + " A and B, CUDA_R_32F C, CUBLAS_COMPUTE_32F (tensor cores); " + detail);
      };
      gemm_16bit("gemmex_fp16", CUDA_R_16F, "CUDA_R_16F", +[](float x) { return __float2half(x); },
                 +[](__half x) { return __half2float(x); });
      gemm_16bit("gemmex_bf16", CUDA_R_16BF, "CUDA_R_16BF", +[](float x) { return __float2bfloat16(x); },
                 +[](__nv_bfloat16 x) { return __bfloat162float(x); });
    } catch (const std::exception &e) {  // device memory for the workload
      Measurement failed;
      failed.workload = w.name, failed.peer = "cublas", failed.variant = "sgemm", failed.threads = o.threads;
      failed.error = e.what();
      report(o, w, failed);
      ok = false;
    }
  }
  cublasDestroy(handle);
  return ok ? 0 : 1;
}
