/* The compiled entry of an op of several kernels on a real GPU (docs/graph.md, "On the GPU"): a C
   program that copies `texc run --save-io DIR`'s inputs of examples/10_network.tex (run on x86, so
   checked against the reference there) into device memory, calls net.o's small_cnn (`texc
   examples/10_network.tex --target cuda -D S=.. -o net`: the kernels launched without waiting
   between them, one wait, the intermediates in the thread's device workspace) twice, copies Y back
   after each call and compares it with DIR's Y, then frees the workspace with
   texrt_cuda_release_workspace. Exit 2 without a CUDA device. Run by tools/device_check.sh (step
   graph); built without one by cuda_graph_test.sh. Prints one line, exits 0 when both calls match.
   usage: cuda_graph_device_check DIR */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_driver_api.h"
#include "graph/read_npy.h"
#include "net.h"

static float X[SMALL_CNN_X_SIZE], W1[SMALL_CNN_W1_SIZE], B1[SMALL_CNN_B1_SIZE], W2[SMALL_CNN_W2_SIZE],
    B2[SMALL_CNN_B2_SIZE], W3[SMALL_CNN_W3_SIZE], B3[SMALL_CNN_B3_SIZE], Y[SMALL_CNN_Y_SIZE], expected[SMALL_CNN_Y_SIZE];

static int read_f32(const char* dir, const char* name, float* out, long count) {
  return read_npy(dir, "small_cnn", name, "<f4", sizeof(float), out, count);
}

#define ON_DEVICE(host) ((const float*)(uintptr_t)device_copy(host, sizeof host, "copy " #host))

int main(int argc, char** argv) {
  if (argc != 2) return fprintf(stderr, "usage: cuda_graph_device_check DIR\n"), 1;
  const char* dir = argv[1];
  if (!read_f32(dir, "X", X, SMALL_CNN_X_SIZE) || !read_f32(dir, "W1", W1, SMALL_CNN_W1_SIZE) ||
      !read_f32(dir, "B1", B1, SMALL_CNN_B1_SIZE) || !read_f32(dir, "W2", W2, SMALL_CNN_W2_SIZE) ||
      !read_f32(dir, "B2", B2, SMALL_CNN_B2_SIZE) || !read_f32(dir, "W3", W3, SMALL_CNN_W3_SIZE) ||
      !read_f32(dir, "B3", B3, SMALL_CNN_B3_SIZE) || !read_f32(dir, "Y", expected, SMALL_CNN_Y_SIZE))
    return 1;
  if (cuda_open() != 0) return 2;
  const float *dx = ON_DEVICE(X), *dw1 = ON_DEVICE(W1), *db1 = ON_DEVICE(B1), *dw2 = ON_DEVICE(W2),
              *db2 = ON_DEVICE(B2), *dw3 = ON_DEVICE(W3), *db3 = ON_DEVICE(B3);
  CUdeviceptr dy;
  must(cu_mem_alloc(&dy, sizeof Y), "cuMemAlloc Y");
  double worst = 0;
  for (int call = 0; call < 2; ++call) {
    int code = small_cnn(dx, dw1, db1, dw2, db2, dw3, db3, (float*)(uintptr_t)dy);
    if (code != TEXRT_CUDA_SUCCESS) {
      printf("FAIL: small_cnn returned %d: %s\n", code, texrt_cuda_error_message(code));
      return code == TEXRT_CUDA_NO_DEVICE ? 2 : 1;
    }
    must(cu_memcpy_dtoh(Y, dy, sizeof Y), "copy Y back");
    for (int i = 0; i < SMALL_CNN_Y_SIZE; ++i) {
      double err = fabs(Y[i] - expected[i]) / (fabs(expected[i]) + 1e-3);
      if (!(err <= worst)) worst = err;  // NaN (an element never written) counts as worst
    }
  }
  int released = texrt_cuda_release_workspace();
  int ok = worst < 1e-4 && released == 0;
  printf("%s: small_cnn through net.o's entry on the device, twice, worst relative error %.3g against texc run on "
         "x86; workspace released: %d\n",
         ok ? "ok" : "FAIL", worst, released);
  return ok ? 0 : 1;
}
