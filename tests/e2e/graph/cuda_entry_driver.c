/* cuda_graph_test.sh: a C program calling the host entry of examples/10_network.tex compiled with
   `--target cuda -D S=8 -o net` (net.o + net.h, linked with libtexrt.a) twice, against the recording
   libcuda.so.1 stand-in (fake_libcuda.c), stopping at the first error, then
   texrt_cuda_release_workspace. The entry takes its workspace from texrt_cuda_thread_workspace (the
   thread's, allocated at the first call, kept for the second) and launches its kernels through
   texrt_cuda_launch; the pointers are made-up device addresses the stand-in never dereferences.
   Prints the return code and texrt_cuda_error_message, and exits with the code. With the argument
   `workspace`: small_cnn_with_workspace twice instead, on the made-up device workspace 0xC0000000
   (ir/CallerWorkspace.h), and no release. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "net.h"

#define DEVICE(type, address) ((type*)(uintptr_t)(address))

int main(int argc, char** argv) {
  int caller_workspace = argc > 1 && strcmp(argv[1], "workspace") == 0;
  int code = 0;
  for (int call = 0; call < 2 && code == 0; ++call) {
    const float* X = DEVICE(const float, 0xA0000000u);
    const float* W1 = DEVICE(const float, 0xA1000000u);
    const float* B1 = DEVICE(const float, 0xA2000000u);
    const float* W2 = DEVICE(const float, 0xA3000000u);
    const float* B2 = DEVICE(const float, 0xA4000000u);
    const float* W3 = DEVICE(const float, 0xA5000000u);
    const float* B3 = DEVICE(const float, 0xA6000000u);
    float* Y = DEVICE(float, 0xB0000000u);
    code = caller_workspace ? small_cnn_with_workspace(X, W1, B1, W2, B2, W3, B3, Y, DEVICE(void, 0xC0000000u))
                            : small_cnn(X, W1, B1, W2, B2, W3, B3, Y);
  }
  if (!caller_workspace) {
    int released = texrt_cuda_release_workspace();
    if (code == 0) code = released;
  }
  printf("%d %s\n", code, texrt_cuda_error_message(code));
  return code;
}
