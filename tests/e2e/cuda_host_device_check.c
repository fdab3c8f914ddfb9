/* The host path of docs/cuda.md on a real GPU: a C program that takes device memory through the
   CUDA driver API, calls the host function `mm` of `texc mm.tex --target cuda -o mm` (mm.o + mm.h,
   linked with libtexrt.a), copies C back and compares it with a plain C matrix product.
   mm.tex is `C = matmul(A, B)` (linalg.matmul) of the shapes in mm.h's MM_A_DIM0... macros.
   Needs a CUDA device (exit 2 without one, as texc run does); no CUDA header or library at build
   time: the driver is loaded with dlopen, as the host function itself does.
   Run on a GPU machine by tools/device_check.sh. Prints one line and exits 0 when C matches. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mm.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static CUresult (*cu_init)(unsigned);
static CUresult (*cu_device_get)(int*, int);
static CUresult (*cu_primary_ctx_retain)(void**, int);
static CUresult (*cu_ctx_set_current)(void*);
static CUresult (*cu_mem_alloc)(CUdeviceptr*, size_t);
static CUresult (*cu_memcpy_htod)(CUdeviceptr, const void*, size_t);
static CUresult (*cu_memcpy_dtoh)(void*, CUdeviceptr, size_t);

static void* symbol(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "cuda_host_device_check: libcuda.so.1 lacks %s\n", name);
    exit(1);
  }
  return p;
}

static void must(CUresult r, const char* what) {
  if (r != 0) {
    fprintf(stderr, "cuda_host_device_check: %s failed with CUresult %d\n", what, r);
    exit(1);
  }
}

int main(void) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "no CUDA device: libcuda.so.1 cannot be loaded\n");
    return 2;
  }
  cu_init = symbol(lib, "cuInit");
  cu_device_get = symbol(lib, "cuDeviceGet");
  cu_primary_ctx_retain = symbol(lib, "cuDevicePrimaryCtxRetain");
  cu_ctx_set_current = symbol(lib, "cuCtxSetCurrent");
  cu_mem_alloc = symbol(lib, "cuMemAlloc_v2");
  cu_memcpy_htod = symbol(lib, "cuMemcpyHtoD_v2");
  cu_memcpy_dtoh = symbol(lib, "cuMemcpyDtoH_v2");
  if (cu_init(0) != 0) {
    fprintf(stderr, "no CUDA device: cuInit failed\n");
    return 2;
  }
  int device = 0;
  void* ctx = NULL;
  must(cu_device_get(&device, 0), "cuDeviceGet");
  must(cu_primary_ctx_retain(&ctx, device), "cuDevicePrimaryCtxRetain");
  must(cu_ctx_set_current(ctx), "cuCtxSetCurrent");

  const int m = MM_A_DIM0, k = MM_A_DIM1, n = MM_B_DIM1;
  float* a = malloc(sizeof(float) * m * k);
  float* b = malloc(sizeof(float) * k * n);
  float* c = malloc(sizeof(float) * m * n);
  srand(7);
  for (int i = 0; i < m * k; ++i) a[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int i = 0; i < k * n; ++i) b[i] = (float)rand() / RAND_MAX - 0.5f;
  CUdeviceptr da, db, dc;
  must(cu_mem_alloc(&da, sizeof(float) * m * k), "cuMemAlloc A");
  must(cu_mem_alloc(&db, sizeof(float) * k * n), "cuMemAlloc B");
  must(cu_mem_alloc(&dc, sizeof(float) * m * n), "cuMemAlloc C");
  must(cu_memcpy_htod(da, a, sizeof(float) * m * k), "copy A");
  must(cu_memcpy_htod(db, b, sizeof(float) * k * n), "copy B");

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
