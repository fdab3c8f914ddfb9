/* The host entry of examples/10_network.tex (compiled with -D S=16) computes what its kernels
 * called one by one compute: small_cnn(...) against small_cnn_k0 ... small_cnn_k5 with this
 * program's own intermediates, bit for bit (the kernels' correctness is texc run's check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

static void fill(float* p, int n, unsigned seed) {
  for (int i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    p[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
  }
}

int main(void) {
  static float X[SMALL_CNN_X_SIZE], W1[SMALL_CNN_W1_SIZE], B1[SMALL_CNN_B1_SIZE], W2[SMALL_CNN_W2_SIZE],
      B2[SMALL_CNN_B2_SIZE], W3[SMALL_CNN_W3_SIZE], B3[SMALL_CNN_B3_SIZE], Y[SMALL_CNN_Y_SIZE], Y2[SMALL_CNN_Y_SIZE];
  static float A1[SMALL_CNN_K0_A1_SIZE], P1[SMALL_CNN_K1_P1_SIZE], A2[SMALL_CNN_K2_A2_SIZE], F[SMALL_CNN_K3_F_SIZE],
      L[SMALL_CNN_K4_L_SIZE];
  fill(X, SMALL_CNN_X_SIZE, 1);
  fill(W1, SMALL_CNN_W1_SIZE, 2);
  fill(B1, SMALL_CNN_B1_SIZE, 3);
  fill(W2, SMALL_CNN_W2_SIZE, 4);
  fill(B2, SMALL_CNN_B2_SIZE, 5);
  fill(W3, SMALL_CNN_W3_SIZE, 6);
  fill(B3, SMALL_CNN_B3_SIZE, 7);
  small_cnn(X, W1, B1, W2, B2, W3, B3, Y);
  small_cnn_k0(X, W1, B1, A1);
  small_cnn_k1(A1, P1);
  small_cnn_k2(W2, B2, P1, A2);
  small_cnn_k3(A2, F);
  small_cnn_k4(W3, B3, F, L);
  small_cnn_k5(L, Y2);
  float sum = 0;
  for (int i = 0; i < SMALL_CNN_Y_SIZE; ++i) sum += Y[i];
  if (memcmp(Y, Y2, sizeof Y) != 0 || sum < 0.99f || sum > 1.01f) {
    printf("FAIL: the entry's output differs from its kernels' (or is no softmax: sum %g)\n", sum);
    return 1;
  }
  printf("entry == kernels, softmax sums to %g\n", sum);
  return 0;
}
