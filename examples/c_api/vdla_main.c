/* examples/c_api/vdla_main.c — a C program running an op compiled for VDLA (runtime/texrt_vdla.h):
 * examples/08_vdla_conv.tex compiled with `texc ... --target vdla -D H=.. -D W=.. -o conv` into
 * conv.vdla, loaded once, run twice on the simulator, and checked bit for bit against the same
 * convolution written out here. H and W come from the compiler's command line (cc -DH=.. -DW=..).
 * Prints "vdla c_api example: ok" and exits 0 when every output matches. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/texrt_vdla.h"

#define CB 2 /* input channel blocks of 16 */
#define FB 4 /* output channel blocks of 16 */

static int8_t X[1][CB][H][W][16];
static int8_t Wt[FB][CB][3][3][16][16];
static int8_t Y[1][FB][H][W][16];

/* The op's definition: 3x3, padding 1, int32 sums shifted right by 4 and clamped to int8. */
static int8_t reference(int fb, int oy, int ox, int fo) {
  int32_t acc = 0;
  for (int cb = 0; cb < CB; ++cb)
    for (int ry = 0; ry < 3; ++ry)
      for (int rx = 0; rx < 3; ++rx)
        for (int ci = 0; ci < 16; ++ci) {
          int y = oy + ry - 1, x = ox + rx - 1;
          int32_t xv = (y >= 0 && y < H && x >= 0 && x < W) ? X[0][cb][y][x][ci] : 0;
          acc += xv * (int32_t)Wt[fb][cb][ry][rx][fo][ci];
        }
  acc >>= 4;
  return (int8_t)(acc < -128 ? -128 : acc > 127 ? 127 : acc);
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "conv.vdla";
  texrt_vdla_program* program = texrt_vdla_load(path);
  if (!program) {
    printf("cannot load %s: %s\n", path, texrt_vdla_last_error());
    return 1;
  }
  /* The arguments as the program lists them: X, Wt (inputs), then Y (output). */
  void* args[] = {X, Wt, Y};
  const uint64_t bytes[] = {sizeof X, sizeof Wt, sizeof Y};
  if (texrt_vdla_num_args(program) != 3) {
    printf("expected 3 arguments, the program has %d\n", texrt_vdla_num_args(program));
    return 1;
  }
  for (int i = 0; i < 3; ++i) {
    printf("argument %d: %s, %" PRIu64 " bytes, %s\n", i, texrt_vdla_arg_name(program, i),
           texrt_vdla_arg_bytes(program, i), texrt_vdla_arg_is_output(program, i) ? "output" : "input");
    if (texrt_vdla_arg_bytes(program, i) != bytes[i] || texrt_vdla_arg_is_output(program, i) != (i == 2)) {
      printf("argument %d does not match this program's shapes (compile it with -D H=%d -D W=%d)\n", i, H, W);
      return 1;
    }
  }
  int bad = 0;
  for (int round = 0; round < 2; ++round) {
    /* Different inputs each round: the program is loaded once and run again. */
    srand(7 + round);
    for (size_t i = 0; i < sizeof X; ++i) ((int8_t*)X)[i] = (int8_t)(rand() % 256 - 128);
    for (size_t i = 0; i < sizeof Wt; ++i) ((int8_t*)Wt)[i] = (int8_t)(rand() % 9 - 4);
    memset(Y, 0x55, sizeof Y);
    uint64_t cycles = 0;
    if (texrt_vdla_run(program, args, &cycles) != 0) {
      printf("run failed: %s\n", texrt_vdla_last_error());
      return 1;
    }
    printf("round %d: %" PRIu64 " cycles\n", round, cycles);
    for (int fb = 0; fb < FB; ++fb)
      for (int oy = 0; oy < H; ++oy)
        for (int ox = 0; ox < W; ++ox)
          for (int fo = 0; fo < 16; ++fo)
            if (Y[0][fb][oy][ox][fo] != reference(fb, oy, ox, fo) && bad++ < 5)
              printf("Y[0][%d][%d][%d][%d] = %d, expected %d\n", fb, oy, ox, fo, Y[0][fb][oy][ox][fo],
                     reference(fb, oy, ox, fo));
  }
  void* null_args[] = {X, NULL, Y};
  if (texrt_vdla_run(program, null_args, NULL) == 0 || strstr(texrt_vdla_last_error(), "'Wt'") == NULL) {
    printf("a NULL argument was not refused: '%s'\n", texrt_vdla_last_error());
    bad++;
  }
  texrt_vdla_free(program);
  if (texrt_vdla_load("missing.vdla") != NULL || texrt_vdla_last_error()[0] == '\0') {
    printf("loading a missing file did not fail with a message\n");
    bad++;
  }
  puts(bad ? "vdla c_api example: FAILED" : "vdla c_api example: ok");
  return bad ? 1 : 0;
}
