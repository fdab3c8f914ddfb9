/* cuda_run_test.sh: a C program calling the host function of `texc mm.tex --target cuda -o mm`
   (mm.o + mm.h, linked with libtexrt.a) once, run against the recording libcuda.so.1 stand-in
   (fake_libcuda.c). The pointers are made-up device addresses: the stand-in never dereferences
   them. Prints the return code and texrt_cuda_error_message, and exits with the code. */
#include <stdint.h>
#include <stdio.h>

#include "mm.h"

int main(void) {
  const float* a = (const float*)(uintptr_t)0xA0000000u;
  const float* b = (const float*)(uintptr_t)0xB0000000u;
  float* c = (float*)(uintptr_t)0xC0000000u;
  int code = mm(a, b, c);
  printf("%d %s\n", code, texrt_cuda_error_message(code));
  return code;
}
