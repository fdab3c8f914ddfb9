/* The compiled entry of examples/11_vdla_network.tex on --target vdla (texc ... --target vdla -o rb:
 * rb.o with the VDLA kernels' programs embedded, rb.h), called from C as a user would:
 *  - resblock_int8_prepare then resblock_int8 on `texc run --save-io DIR`'s inputs give its output
 *    Y bit for bit (texc run checked it against the reference interpreter), and so does
 *    resblock_int8_with_workspace on this program's buffer (filled with a byte pattern first);
 *  - the VDLA kernels' simulated cycles of one call (texrt_vdla_thread_cycles before and after) are
 *    `expected_cycles`, texc run's count;
 *  - texrt_vdla_load_memory refuses bytes that are no program, with a message.
 * usage: vdla_entry DIR EXPECTED_CYCLES */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb.h"
#include "read_npy.h"
#include "runtime/texrt_vdla.h"

/* An i8 tensor of resblock_int8 saved by texc run --save-io. */
static int read_i8(const char* dir, const char* name, int8_t* out, long count) {
  return read_npy(dir, "resblock_int8", name, "|i1", 1, out, count);
}

static int8_t X[RESBLOCK_INT8_X_SIZE], W1[RESBLOCK_INT8_PREPARE_W1_SIZE], W2[RESBLOCK_INT8_PREPARE_W2_SIZE],
    W1b[RESBLOCK_INT8_W1B_SIZE], W2b[RESBLOCK_INT8_W2B_SIZE], Y[RESBLOCK_INT8_Y_SIZE], Y2[RESBLOCK_INT8_Y_SIZE],
    expected[RESBLOCK_INT8_Y_SIZE];
static _Alignas(RESBLOCK_INT8_WORKSPACE_ALIGNMENT) unsigned char workspace[RESBLOCK_INT8_WORKSPACE_BYTES];

int main(int argc, char** argv) {
  if (argc != 3) return fprintf(stderr, "usage: vdla_entry DIR EXPECTED_CYCLES\n"), 2;
  const uint64_t expected_cycles = strtoull(argv[2], NULL, 10);
  if (!read_i8(argv[1], "X", X, RESBLOCK_INT8_X_SIZE) || !read_i8(argv[1], "W1", W1, RESBLOCK_INT8_PREPARE_W1_SIZE) ||
      !read_i8(argv[1], "W2", W2, RESBLOCK_INT8_PREPARE_W2_SIZE) || !read_i8(argv[1], "Y", expected, RESBLOCK_INT8_Y_SIZE))
    return 1;
  int failures = 0;
  resblock_int8_prepare(W1, W2, W1b, W2b);
  uint64_t before = texrt_vdla_thread_cycles();
  int rc = resblock_int8(X, W1b, W2b, Y);
  uint64_t cycles = texrt_vdla_thread_cycles() - before;
  if (rc != 0) {
    printf("FAIL: resblock_int8 returned %d: %s\n", rc, texrt_vdla_last_error());
    ++failures;
  } else if (memcmp(Y, expected, sizeof Y) != 0) {
    printf("FAIL: resblock_int8's output differs from texc run's\n");
    ++failures;
  } else {
    printf("ok: resblock_int8 == texc run's output (%d bytes)\n", (int)sizeof Y);
  }
  if (cycles != expected_cycles) {
    printf("FAIL: the VDLA kernels took %llu cycles, texc run counted %llu\n", (unsigned long long)cycles,
           (unsigned long long)expected_cycles);
    ++failures;
  } else {
    printf("ok: %llu VDLA cycles, as texc run counts\n", (unsigned long long)cycles);
  }
  memset(workspace, 0xA5, sizeof workspace);
  rc = resblock_int8_with_workspace(X, W1b, W2b, Y2, workspace);
  if (rc != 0 || memcmp(Y2, expected, sizeof Y2) != 0) {
    printf("FAIL: resblock_int8_with_workspace (returned %d)\n", rc);
    ++failures;
  } else {
    printf("ok: resblock_int8_with_workspace (%d bytes of workspace)\n", RESBLOCK_INT8_WORKSPACE_BYTES);
  }
  static const char junk[] = "no program";
  texrt_vdla_program* bad = texrt_vdla_load_memory(junk, sizeof junk, "junk");
  if (bad || strlen(texrt_vdla_last_error()) == 0) {
    printf("FAIL: texrt_vdla_load_memory accepted junk\n");
    ++failures;
  } else {
    printf("ok: junk refused: %s\n", texrt_vdla_last_error());
  }
  return failures ? 1 : 0;
}
