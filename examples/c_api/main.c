/* Calls two texc-compiled ops from plain C and checks their results.
 *
 * matmul.o / axpy.o and their headers are written by c_api_build_ops (build_ops.cpp); link them
 * with libtexrt.a (the runtime: thread pool, allocator; C++, hence -lstdc++) and -lpthread -lm:
 *   cc main.c matmul.o axpy.o libtexrt.a -lstdc++ -lpthread -lm
 * Prints "c_api example: ok" and exits 0 when every value matches. */
#include <math.h>
#include <stdio.h>

#include "axpy.h"
#include "matmul.h"

enum { M = 32, N = 24, K = 16, L = 37 };

static int close_enough(float got, float expected) { return fabsf(got - expected) <= 1e-4f * (1.0f + fabsf(expected)); }

int main(void) {
  static float A[M * K], B[K * N], C[M * N];
  for (int i = 0; i < M * K; ++i) A[i] = (float)(i % 13) - 6.0f;
  for (int i = 0; i < K * N; ++i) B[i] = (float)(i % 7) * 0.25f;
  matmul(A, B, C);
  int errors = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float expected = 0.0f;
      for (int k = 0; k < K; ++k) expected += A[i * K + k] * B[k * N + j];
      if (!close_enough(C[i * N + j], expected)) {
        if (errors++ < 5) printf("matmul: C[%d][%d] = %g, expected %g\n", i, j, C[i * N + j], expected);
      }
    }

  float alpha = 1.5f, X[L], Y0[L], Y[L];
  for (int i = 0; i < L; ++i) X[i] = (float)i, Y0[i] = 10.0f - (float)i;
  axpy(&alpha, X, Y0, Y);
  for (int i = 0; i < L; ++i)
    if (!close_enough(Y[i], alpha * X[i] + Y0[i])) {
      if (errors++ < 10) printf("axpy: Y[%d] = %g, expected %g\n", i, Y[i], alpha * X[i] + Y0[i]);
    }

  if (errors) {
    printf("c_api example: %d wrong values\n", errors);
    return 1;
  }
  printf("c_api example: ok\n");
  return 0;
}
