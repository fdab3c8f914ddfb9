/* The host path of docs/cuda.md on a real GPU: a C program that takes device memory through the
   CUDA driver API, calls the host function `mm` of `texc mm.tex --target cuda -o mm` (mm.o + mm.h,
   linked with libtexrt.a), copies C back and compares it with a plain C matrix product.
   mm.tex is `C = matmul(A, B)` (linalg.matmul) of the shapes in mm.h's MM_A_DIM0... macros.
   Needs a CUDA device (exit 2 without one, as texc run does); no CUDA header or library at build
   time: the driver is loaded with dlopen, as the host function itself does.
   Run on a GPU machine by tools/device_check.sh. Prints one line and exits 0 when C matches. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_driver_api.h"
#include "mm.h"

int main(void) {
  if (cuda_open() != 0) return 2;

  const int m = MM_A_DIM0, k = MM_A_DIM1, n = MM_B_DIM1;
  float* a = malloc(sizeof(float) * m * k);
  float* b = malloc(sizeof(float) * k * n);
  float* c = malloc(sizeof(float) * m * n);
  srand(7);
  for (int i = 0; i < m * k; ++i) a[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int i = 0; i < k * n; ++i) b[i] = (float)rand() / RAND_MAX - 0.5f;
  CUdeviceptr da = device_copy(a, sizeof(float) * m * k, "copy A");
  CUdeviceptr db = device_copy(b, sizeof(float) * k * n, "copy B");
  CUdeviceptr dc;
  must(cu_mem_alloc(&dc, sizeof(float) * m * n), "cuMemAlloc C");

  int code = mm((const float*)(uintptr_t)da, (const float*)(uintptr_t)db, (float*)(uintptr_t)dc);
  if (code != TEXRT_CUDA_SUCCESS) {
    printf("mm returned %d: %s\n", code, texrt_cuda_error_message(code));
    return code == TEXRT_CUDA_NO_DEVICE ? 2 : 1;
  }
  must(cu_memcpy_dtoh(c, dc, sizeof(float) * m * n), "copy C back");

  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) want += (double)a[i * k + p] * b[p * n + j];
      double err = fabs(c[i * n + j] - want) / (fabs(want) + 1e-3);
      if (!(err <= worst)) worst = err;  // NaN (an element never written) counts as worst
    }
  int ok = worst < 1e-4;
  printf("%s: mm %dx%dx%d through mm.o's host function on the device, worst relative error %.3g\n",
         ok ? "ok" : "FAIL", m, k, n, worst);
  return ok ? 0 : 1;
}
