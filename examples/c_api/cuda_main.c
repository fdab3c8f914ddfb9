/* examples/c_api/cuda_main.c — a C program calling an op compiled for CUDA:
 * `texc examples/06_cuda_matmul.tex --target cuda -D M=100 -D N=70 -D K=30 -o mm` writes mm.o (the
 * host function, which launches the kernel; the PTX is inside) and mm.h. The program allocates
 * device memory with the CUDA runtime, copies the inputs, calls the op, copies C back and checks
 * it against a product computed here. Link: mm.o libtexrt.a -lcudart -lstdc++ -lpthread -ldl -lm.
 * Prints "cuda c_api example: ok"; without a CUDA device it says so and exits 77 (skipped). */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>

#include "mm.h"

#define M MATMUL_GPU_A_DIM0
#define K MATMUL_GPU_A_DIM1
#define N MATMUL_GPU_B_DIM1

static float a[M * K], b[K * N], c[M * N];

int main(void) {
  float *da, *db, *dc;
  cudaError_t e = cudaMalloc((void**)&da, sizeof a);
  if (e != cudaSuccess) {
    printf("cuda c_api example: skipped, no usable CUDA device (cudaMalloc: %s)\n", cudaGetErrorString(e));
    return 77;
  }
  if (cudaMalloc((void**)&db, sizeof b) != cudaSuccess || cudaMalloc((void**)&dc, sizeof c) != cudaSuccess) {
    puts("cudaMalloc failed");
    return 1;
  }
  for (int i = 0; i < M * K; ++i) a[i] = (float)(i % 13) / 13.0f - 0.5f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)(i % 7) / 7.0f - 0.5f;
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  int code = matmul_gpu(da, db, dc); /* device pointers; launches and waits */
  if (code != TEXRT_CUDA_SUCCESS) {
    printf("matmul_gpu: %s\n", texrt_cuda_error_message(code));
    return 1;
  }
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += (double)a[i * K + k] * b[k * N + j];
      if (fabs(c[i * N + j] - want) > 1e-4 * (1 + fabs(want)) && bad++ < 5)
        printf("C[%d][%d] = %g, expected %g\n", i, j, c[i * N + j], want);
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  puts(bad ? "cuda c_api example: FAILED" : "cuda c_api example: ok");
  return bad ? 1 : 0;
}
