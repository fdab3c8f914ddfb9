/* cuda_graph_test.sh: a C program calling the host entry of examples/10_network.tex compiled with
   `--target cuda -D S=8 -o net` (net.o + net.h, linked with libtexrt.a) once, against the recording
   libcuda.so.1 stand-in (fake_libcuda.c). The entry allocates its workspace with texrt_cuda_alloc
   and launches its kernels through texrt_cuda_launch; the pointers are made-up device addresses
   the stand-in never dereferences. Prints the return code and texrt_cuda_error_message, and exits
   with the code. */
#include <stdint.h>
#include <stdio.h>

#include "net.h"

#define DEVICE(type, address) ((type*)(uintptr_t)(address))

int main(void) {
  int code = small_cnn(DEVICE(const float, 0xA0000000u), DEVICE(const float, 0xA1000000u),
                       DEVICE(const float, 0xA2000000u), DEVICE(const float, 0xA3000000u),
                       DEVICE(const float, 0xA4000000u), DEVICE(const float, 0xA5000000u),
                       DEVICE(const float, 0xA6000000u), DEVICE(float, 0xB0000000u));
  printf("%d %s\n", code, texrt_cuda_error_message(code));
  return code;
}
