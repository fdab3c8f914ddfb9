/* Calls two texc-compiled ops from plain C and checks their results against naive loops.
 *
 * matmul.o/.h and scale_relu.o/.h are written by texc from examples/02_matmul.tex and
 * examples/01_elementwise.tex (see build_and_run.sh for the commands); the program links both objects
 * with one libtexrt.a (the runtime: thread pool, allocator; C++, hence -lstdc++):
 *   cc main.c matmul.o scale_relu.o libtexrt.a -lstdc++ -lpthread -lm
 * The sizes are the -D values given to texc; each header defines them as macros (MATMUL_A_DIM0 is
 * the first dimension of matmul's argument A). Prints "c_api example: ok" and exits 0 when every
 * value matches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "matmul.h"
#include "scale_relu.h"

enum { M = MATMUL_A_DIM0, K = MATMUL_A_DIM1, N = MATMUL_B_DIM1, L = SCALE_RELU_A_SIZE };
_Static_assert(MATMUL_C_DIM0 == M && MATMUL_C_DIM1 == N && MATMUL_C_SIZE == M * N, "matmul's output is C[M, N]");

static int close_enough(float got, float expected) { return fabsf(got - expected) <= 1e-4f * (1.0f + fabsf(expected)); }

int main(void) {
  int errors = 0;

  /* matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] */
  float* A = malloc(sizeof(float) * M * K);
  float* B = malloc(sizeof(float) * K * N);
  float* C = malloc(sizeof(float) * M * N);
  for (int i = 0; i < M * K; ++i) A[i] = (float)(i % 13) - 6.0f;
  for (int i = 0; i < K * N; ++i) B[i] = (float)(i % 7) * 0.25f;
  matmul(A, B, C);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float expected = 0.0f;
      for (int k = 0; k < K; ++k) expected += A[i * K + k] * B[k * N + j];
      if (!close_enough(C[i * N + j], expected) && errors++ < 5)
        printf("matmul: C[%d][%d] = %g, expected %g\n", i, j, C[i * N + j], expected);
    }

  /* scale_relu(A: f32[L]) -> B: f32[L], B[i] = max(A[i] * 2 + 0.5, 0) (alpha's default, 2) */
  float* X = malloc(sizeof(float) * L);
  float* Y = malloc(sizeof(float) * L);
  for (int i = 0; i < L; ++i) X[i] = (float)(i % 17) * 0.125f - 1.0f;
  scale_relu(X, Y);
  for (int i = 0; i < L; ++i) {
    float expected = fmaxf(X[i] * 2.0f + 0.5f, 0.0f);
    if (!close_enough(Y[i], expected) && errors++ < 10) printf("scale_relu: B[%d] = %g, expected %g\n", i, Y[i], expected);
  }

  free(A), free(B), free(C), free(X), free(Y);
  if (errors) {
    printf("c_api example: %d wrong values\n", errors);
    return 1;
  }
  printf("c_api example: ok\n");
  return 0;
}
