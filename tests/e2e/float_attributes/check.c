/* Calls the compiled ops of scale.tex through their C header and checks each output against the
 * formula written out here, with the attribute values the test compiled them with
 * (EXPECT_ALPHA, EXPECT_BETA) and the header's OP_ATTR macros. Exit 0 when every value matches. */
#include <math.h>
#include <stdio.h>

#include "scale.h"

static int close_to(float got, double want) { return fabs(got - want) <= 1e-6 * (1 + fabs(want)); }

int main(void) {
  float x[SCALE_SHIFT_X_SIZE], y[SCALE_SHIFT_Y_SIZE], a[USER_A_SIZE], b[USER_B_SIZE];
  int bad = 0;
  if (SCALE_SHIFT_ATTR_ALPHA != EXPECT_ALPHA || SCALE_SHIFT_ATTR_BETA != EXPECT_BETA || LEAKY_ATTR_SLOPE != 0.01) {
    printf("header macros: alpha %g beta %g slope %g\n", SCALE_SHIFT_ATTR_ALPHA, SCALE_SHIFT_ATTR_BETA, LEAKY_ATTR_SLOPE);
    bad = 1;
  }
  for (int i = 0; i < SCALE_SHIFT_X_SIZE; ++i) x[i] = (float)(i % 7) - 3.0f;
  for (int i = 0; i < USER_A_SIZE; ++i) a[i] = (float)(i % 5) - 2.5f;
  scale_shift(x, y);
  user(a, b);
  for (int i = 0; i < SCALE_SHIFT_Y_SIZE; ++i)
    if (!close_to(y[i], x[i] * (float)EXPECT_ALPHA + (float)EXPECT_BETA)) {
      printf("scale_shift: y[%d] = %g\n", i, y[i]);
      bad = 1;
    }
  for (int i = 0; i < USER_B_SIZE; ++i) {
    float t = a[i] > 0 ? a[i] : a[i] * 0.2f;
    if (!close_to(b[i], t * 2.0f + 0.25f)) {
      printf("user: b[%d] = %g (a = %g)\n", i, b[i], a[i]);
      bad = 1;
    }
  }
  puts(bad ? "FAIL" : "PASS");
  return bad;
}
