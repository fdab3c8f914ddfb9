/* A C program using the host functions of texc's cuda target (cuda_host_object_test builds it
   against kernels.o + kernels.h and libtexrt.a). Without a CUDA device every call must return
   TEXRT_CUDA_NO_DEVICE with a message, and the program exits 2; it never dereferences the (null)
   device pointers. */
#include <stdio.h>

#include "kernels.h"

int main(void) {
  /* The header's shape macros and prototypes: device pointers of the documented types. */
  static const int64_t shape[] = MATMUL_C_SHAPE;
  if (MATMUL_C_SIZE != 4096 || MATMUL_C_RANK != 1 || shape[0] != 4096 || ROW_SUM_S_SIZE != 128) {
    printf("wrong shape macros\n");
    return 1;
  }
  const float* a = 0;
  const float* b = 0;
  float* c = 0;
  int codes[3];
  codes[0] = matmul(a, b, c);
  codes[1] = row_sum(a, c);
  codes[2] = add_exp(a, b, c);
  for (int i = 0; i < 3; ++i) {
    if (codes[i] != TEXRT_CUDA_NO_DEVICE) {
      printf("call %d returned %d: %s\n", i, codes[i], texrt_cuda_error_message(codes[i]));
      return 1;
    }
  }
  printf("%s\n", texrt_cuda_error_message(codes[2]));
  return 2;
}
