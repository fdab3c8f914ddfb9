/* examples/05_intrinsic_dot16.c — the C kernel that 05_intrinsic.tex's `dot16` intrinsic lowers to.
 *
 *   c[j] = sum(i32(a[k]) * i32(b[j, k]) for k in 0..16),  j in 0..16
 *
 * b is 16x16 row-major (b[j, k] at b[j * 16 + k]). tensorize calls it once per row of the op, with
 * pointers into the op's buffers. Give it to texc with
 *   texc run examples/05_intrinsic.tex --target x86 --extern-src examples/05_intrinsic_dot16.c
 * (compiled with cc for x86 and interp, with aarch64-linux-gnu-gcc for arm), or link it with the
 * object that `texc examples/05_intrinsic.tex --target x86` writes. */
#include <stdint.h>

void my_dot16(const int8_t* a, const int8_t* b, int32_t* c) {
  for (int j = 0; j < 16; ++j) {
    int32_t acc = 0;
    for (int k = 0; k < 16; ++k) acc += (int32_t)a[k] * (int32_t)b[j * 16 + k];
    c[j] = acc;
  }
}
