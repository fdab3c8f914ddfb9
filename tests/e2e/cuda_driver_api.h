/* The few CUDA driver API calls the device checks make (tests/e2e/cuda_*_device_check.c), loaded
   with dlopen as texc's host functions load the driver: no CUDA header or library at build time.
   cuda_open() makes device 0's primary context current; it returns 0, or 2 with a message when
   there is no driver or device (the checks then exit 2, as texc run does). */
#pragma once
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static CUresult (*cu_init)(unsigned);
static CUresult (*cu_device_get)(int*, int);
static CUresult (*cu_primary_ctx_retain)(void**, int);
static CUresult (*cu_ctx_set_current)(void*);
static CUresult (*cu_mem_alloc)(CUdeviceptr*, size_t);
static CUresult (*cu_memcpy_htod)(CUdeviceptr, const void*, size_t);
static CUresult (*cu_memcpy_dtoh)(void*, CUdeviceptr, size_t);

static void* cuda_symbol(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "libcuda.so.1 lacks %s\n", name);
    exit(1);
  }
  return p;
}

static void must(CUresult r, const char* what) {
  if (r != 0) {
    fprintf(stderr, "%s failed with CUresult %d\n", what, r);
    exit(1);
  }
}

static int cuda_open(void) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "no CUDA device: libcuda.so.1 cannot be loaded\n");
    return 2;
  }
  cu_init = cuda_symbol(lib, "cuInit");
  cu_device_get = cuda_symbol(lib, "cuDeviceGet");
  cu_primary_ctx_retain = cuda_symbol(lib, "cuDevicePrimaryCtxRetain");
  cu_ctx_set_current = cuda_symbol(lib, "cuCtxSetCurrent");
  cu_mem_alloc = cuda_symbol(lib, "cuMemAlloc_v2");
  cu_memcpy_htod = cuda_symbol(lib, "cuMemcpyHtoD_v2");
  cu_memcpy_dtoh = cuda_symbol(lib, "cuMemcpyDtoH_v2");
  if (cu_init(0) != 0) {
    fprintf(stderr, "no CUDA device: cuInit failed\n");
    return 2;
  }
  int device = 0;
  void* ctx = NULL;
  must(cu_device_get(&device, 0), "cuDeviceGet");
  must(cu_primary_ctx_retain(&ctx, device), "cuDevicePrimaryCtxRetain");
  must(cu_ctx_set_current(ctx), "cuCtxSetCurrent");
  return 0;
}

/* `bytes` of device memory holding a copy of `host`. */
static CUdeviceptr device_copy(const void* host, size_t bytes, const char* what) {
  CUdeviceptr p;
  must(cu_mem_alloc(&p, bytes), what);
  must(cu_memcpy_htod(p, host, bytes), what);
  return p;
}
