/* A recording stand-in for libcuda.so.1, for cuda_run_test.sh: a test of the HOST code of
   `texc run --target cuda` (tools/driver/CudaExecutor.cpp, runtime/CudaDriver.cpp) on a machine
   without a GPU -- the driver-API calls it makes, in which order, with which sizes and launch
   dimensions, and what it does when a call fails.

   It is NOT a CUDA emulator and computes nothing: no kernel runs, device "memory" is a made-up
   address, cuMemcpyDtoH writes nothing back. So an op run through it must FAIL its check against
   the reference interpreter (its outputs keep the NaN that texc fills them with), and the test
   asserts exactly that. Built as fake_libcuda/libcuda.so.1 and put first on LD_LIBRARY_PATH, it is
   what dlopen("libcuda.so.1") finds.

   Environment:
     TEXC_FAKE_CUDA      the behaviour: ok (default: every call succeeds; device 0 has compute
                         capability TEXC_FAKE_CUDA_CC, default 80), no-device (cuInit fails with
                         CUDA_ERROR_NO_DEVICE), reject-ptx (cuModuleLoadDataEx fails with
                         CUDA_ERROR_INVALID_PTX and a log), launch-fails (cuLaunchKernel fails
                         with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), kernel-fails (cuCtxSynchronize
                         fails with CUDA_ERROR_ILLEGAL_ADDRESS)
     TEXC_FAKE_CUDA_LOG  append one line per call here ("cuMemAlloc_v2 bytes=512 -> 0x10000000")
     TEXC_FAKE_CUDA_PTX  write the PTX given to cuModuleLoadDataEx to this file */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  kSuccess = 0,
  kErrorInvalidValue = 1,
  kErrorNoDevice = 100,
  kErrorInvalidPtx = 218,
  kErrorIllegalAddress = 700,
  kErrorLaunchOutOfResources = 701,
};

static int mode_is(const char* mode) {
  const char* m = getenv("TEXC_FAKE_CUDA");
  return strcmp(m && *m ? m : "ok", mode) == 0;
}

static void record(const char* format, ...) {
  const char* path = getenv("TEXC_FAKE_CUDA_LOG");
  if (!path || !*path) return;
  FILE* f = fopen(path, "a");
  if (!f) return;
  va_list args;
  va_start(args, format);
  vfprintf(f, format, args);
  va_end(args);
  fputc('\n', f);
  fclose(f);
}

static int g_context, g_module, g_function, g_events;  /* addresses used as opaque handles */
static CUdeviceptr g_next_pointer = 0x10000000ull;

CUresult cuGetErrorString(CUresult r, const char** text) {
  switch (r) {
    case kErrorNoDevice: *text = "no CUDA-capable device is detected"; return kSuccess;
    case kErrorInvalidPtx: *text = "a PTX JIT compilation failed"; return kSuccess;
    case kErrorIllegalAddress: *text = "an illegal memory access was encountered"; return kSuccess;
    case kErrorLaunchOutOfResources: *text = "too many resources requested for launch"; return kSuccess;
    default: *text = NULL; return kErrorInvalidValue;
  }
}

CUresult cuInit(unsigned flags) {
  record("cuInit flags=%u", flags);
  return mode_is("no-device") ? kErrorNoDevice : kSuccess;
}
CUresult cuDeviceGetCount(int* count) {
  record("cuDeviceGetCount");
  *count = 1;
  return kSuccess;
}
CUresult cuDeviceGet(int* device, int ordinal) {
  record("cuDeviceGet ordinal=%d", ordinal);
  *device = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetName(char* name, int length, int device) {
  record("cuDeviceGetName device=%d", device);
  snprintf(name, (size_t)length, "texc recording shim (no GPU)");
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int* value, int attribute, int device) {
  const char* cc = getenv("TEXC_FAKE_CUDA_CC");
  int capability = cc && *cc ? atoi(cc) : 80;
  record("cuDeviceGetAttribute attribute=%d device=%d", attribute, device);
  if (attribute == 75) *value = capability / 10;      /* COMPUTE_CAPABILITY_MAJOR */
  else if (attribute == 76) *value = capability % 10; /* COMPUTE_CAPABILITY_MINOR */
  else return kErrorInvalidValue;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void** context, int device) {
  record("cuDevicePrimaryCtxRetain device=%d", device);
  *context = &g_context;
  return kSuccess;
}
CUresult cuCtxGetCurrent(void** context) {
  record("cuCtxGetCurrent");
  *context = NULL;
  return kSuccess;
}
CUresult cuCtxSetCurrent(void* context) {
  record("cuCtxSetCurrent %s", context == &g_context ? "primary" : "other");
  return kSuccess;
}
CUresult cuCtxSynchronize(void) {
  record("cuCtxSynchronize");
  return mode_is("kernel-fails") ? kErrorIllegalAddress : kSuccess;
}

static CUresult load_module(const char* call, void** module, const void* image) {
  const char* text = (const char*)image;
  const char* target = strstr(text, ".target ");
  int target_length = 0;
  while (target && target[target_length] && target[target_length] != '\n') ++target_length;
  record("%s ptx_bytes=%zu %.*s", call, strlen(text), target_length, target ? target : "");
  const char* path = getenv("TEXC_FAKE_CUDA_PTX");
  if (path && *path) {
    FILE* f = fopen(path, "w");
    if (f) {
      fputs(text, f);
      fclose(f);
    }
  }
  if (mode_is("reject-ptx")) return kErrorInvalidPtx;
  *module = &g_module;
  return kSuccess;
}
CUresult cuModuleLoadData(void** module, const void* image) { return load_module("cuModuleLoadData", module, image); }
CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned num_options, int* options, void** values) {
  CUresult r = load_module("cuModuleLoadDataEx", module, image);
  if (r == kSuccess) return r;
  /* The driver's error log, as ptxas would write it. */
  char* log = NULL;
  size_t size = 0;
  for (unsigned i = 0; i < num_options; ++i) {
    if (options[i] == 5) log = (char*)values[i];
    if (options[i] == 6) size = (size_t)values[i];
  }
  if (log && size) snprintf(log, size, "ptxas fatal   : the recording shim rejects every PTX");
  return r;
}
CUresult cuModuleUnload(void* module) {
  record("cuModuleUnload %s", module == &g_module ? "the module" : "another");
  return kSuccess;
}
CUresult cuModuleGetFunction(void** function, void* module, const char* name) {
  record("cuModuleGetFunction name=%s", name);
  *function = &g_function;
  return kSuccess;
}
CUresult cuFuncSetAttribute(void* function, int attribute, int value) {
  record("cuFuncSetAttribute attribute=%d value=%d", attribute, value);
  return kSuccess;
}
CUresult cuLaunchKernel(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void* stream, void** params, void** extra) {
  /* The first parameter is a pointer to the first argument's device address. */
  record("cuLaunchKernel grid=%ux%ux%u block=%ux%ux%u shared=%u param0=0x%llx", gx, gy, gz, bx, by, bz, shared,
         params ? *(CUdeviceptr*)params[0] : 0ull);
  return mode_is("launch-fails") ? kErrorLaunchOutOfResources : kSuccess;
}
CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) {
  *pointer = g_next_pointer;
  g_next_pointer += 0x1000000ull;
  record("cuMemAlloc_v2 bytes=%zu -> 0x%llx", bytes, *pointer);
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  record("cuMemFree_v2 0x%llx", pointer);
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void* from, size_t bytes) {
  record("cuMemcpyHtoD_v2 0x%llx bytes=%zu", to, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void* to, CUdeviceptr from, size_t bytes) {
  record("cuMemcpyDtoH_v2 0x%llx bytes=%zu", from, bytes); /* writes nothing: nothing was computed */
  return kSuccess;
}
CUresult cuMemsetD32Async(CUdeviceptr to, unsigned value, size_t count, void* stream) {
  record("cuMemsetD32Async 0x%llx value=%u count=%zu", to, value, count); /* split-K's outputs zeroed */
  return kSuccess;
}
CUresult cuEventCreate(void** event, unsigned flags) {
  record("cuEventCreate");
  *event = &g_events;
  return kSuccess;
}
CUresult cuEventRecord(void* event, void* stream) {
  record("cuEventRecord");
  return kSuccess;
}
CUresult cuEventSynchronize(void* event) {
  record("cuEventSynchronize");
  return kSuccess;
}
CUresult cuEventElapsedTime_v2(float* ms, void* start, void* end) {
  record("cuEventElapsedTime_v2");
  *ms = 1.0f; /* no time was measured: any figure would do, the op fails its check anyway */
  return kSuccess;
}
CUresult cuEventDestroy_v2(void* event) {
  record("cuEventDestroy_v2");
  return kSuccess;
}
