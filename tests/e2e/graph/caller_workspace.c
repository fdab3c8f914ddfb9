/* The caller's workspace (ir/CallerWorkspace.h, docs/graph.md) of examples/10_network.tex compiled
 * with a workspace larger than 64 KB (-D S=96: the plain entry allocates it with texrt_alloc) and
 * two conv kernels with scratch over 64 KB (their padded inputs Xp and C2_Xp, which they would
 * texrt_alloc on each call: here scratch arguments, in the workspace, lower/graph/ScratchParameters.h):
 *  - small_cnn_with_workspace called twice on this program's buffer (filled with NaN bytes between
 *    the calls: nothing is kept in it) and small_cnn (allocating) give the same output bit for
 *    bit, and that output is `texc run`'s (checked against the reference) within 1e-5;
 *  - small_cnn_with_workspace allocates nothing, neither the workspace nor the kernels' scratch:
 *    malloc, calloc, realloc, aligned_alloc, posix_memalign and memalign are counted (this
 *    program's definitions over glibc's, which texrt_alloc's aligned_alloc binds to), and the count
 *    is 0 during its calls; the same counter sees small_cnn allocate its workspace, and that only
 *    (1 allocation: so it counts what it should, and the kernels allocate no scratch there either).
 * usage: caller_workspace DIR, with DIR/small_cnn.NAME.npy written by `texc run --save-io DIR`. */
#define _GNU_SOURCE
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "read_npy.h"

/* glibc's allocator under its exported names. */
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);

static atomic_long allocations;

void* malloc(size_t n) {
  atomic_fetch_add(&allocations, 1);
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  atomic_fetch_add(&allocations, 1);
  return __libc_realloc(p, n);
}
void* aligned_alloc(size_t alignment, size_t n) {
  atomic_fetch_add(&allocations, 1);
  return __libc_memalign(alignment, n);
}
void* memalign(size_t alignment, size_t n) {
  atomic_fetch_add(&allocations, 1);
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** p, size_t alignment, size_t n) {
  atomic_fetch_add(&allocations, 1);
  *p = __libc_memalign(alignment, n);
  return *p ? 0 : 12 /* ENOMEM */;
}

/* An f32 tensor of small_cnn saved by texc run --save-io. */
static int read_f32(const char* dir, const char* name, float* out, long count) {
  return read_npy(dir, "small_cnn", name, "<f4", sizeof(float), out, count);
}

static float X[SMALL_CNN_X_SIZE], W1[SMALL_CNN_W1_SIZE], B1[SMALL_CNN_B1_SIZE], W2[SMALL_CNN_W2_SIZE],
    B2[SMALL_CNN_B2_SIZE], W3[SMALL_CNN_W3_SIZE], B3[SMALL_CNN_B3_SIZE], expected[SMALL_CNN_Y_SIZE];
static float Y1[SMALL_CNN_Y_SIZE], Y2[SMALL_CNN_Y_SIZE], Y3[SMALL_CNN_Y_SIZE];

int main(int argc, char** argv) {
  if (argc != 2) return fprintf(stderr, "usage: %s DIR\n", argv[0]), 2;
  const char* dir = argv[1];
  if (!read_f32(dir, "X", X, SMALL_CNN_X_SIZE) || !read_f32(dir, "W1", W1, SMALL_CNN_W1_SIZE) ||
      !read_f32(dir, "B1", B1, SMALL_CNN_B1_SIZE) || !read_f32(dir, "W2", W2, SMALL_CNN_W2_SIZE) ||
      !read_f32(dir, "B2", B2, SMALL_CNN_B2_SIZE) || !read_f32(dir, "W3", W3, SMALL_CNN_W3_SIZE) ||
      !read_f32(dir, "B3", B3, SMALL_CNN_B3_SIZE) || !read_f32(dir, "Y", expected, SMALL_CNN_Y_SIZE))
    return 2;
  /* The kernels' scratch arguments over 64 KB (the header's macros of their arguments). */
  if (SMALL_CNN_K0_XP_SIZE * 4 <= 64 * 1024 || SMALL_CNN_K2_C2_XP_SIZE * 4 <= 64 * 1024)
    return printf("FAIL: expected scratch over 64 KB in small_cnn_k0 and small_cnn_k2, not %d and %d floats\n",
                  SMALL_CNN_K0_XP_SIZE, SMALL_CNN_K2_C2_XP_SIZE), 1;
  if (SMALL_CNN_WORKSPACE_BYTES <= 64 * 1024 || SMALL_CNN_WORKSPACE_ALIGNMENT != 64)
    return printf("FAIL: expected a workspace over 64 KB aligned to 64, not %d aligned to %d\n",
                  SMALL_CNN_WORKSPACE_BYTES, SMALL_CNN_WORKSPACE_ALIGNMENT), 1;
  void* workspace = aligned_alloc(SMALL_CNN_WORKSPACE_ALIGNMENT, SMALL_CNN_WORKSPACE_BYTES);
  small_cnn(X, W1, B1, W2, B2, W3, B3, Y3); /* starts the thread pool (which allocates once) */

  memset(workspace, 0xff, SMALL_CNN_WORKSPACE_BYTES); /* NaNs: the entry must write before it reads */
  atomic_store(&allocations, 0);
  small_cnn_with_workspace(X, W1, B1, W2, B2, W3, B3, Y1, workspace);
  long first = atomic_load(&allocations);
  memset(workspace, 0xff, SMALL_CNN_WORKSPACE_BYTES);
  atomic_store(&allocations, 0);
  small_cnn_with_workspace(X, W1, B1, W2, B2, W3, B3, Y2, workspace);
  long second = atomic_load(&allocations);
  atomic_store(&allocations, 0);
  small_cnn(X, W1, B1, W2, B2, W3, B3, Y3);
  long plain = atomic_load(&allocations);
  free(workspace);

  int failures = 0;
  if (first != 0 || second != 0) {
    printf("FAIL: small_cnn_with_workspace allocated (%ld, then %ld allocations)\n", first, second);
    ++failures;
  }
  if (plain != 1) {
    printf("FAIL: small_cnn made %ld allocations, not 1 (its workspace; its kernels' scratch is in it)\n", plain);
    ++failures;
  }
  if (memcmp(Y1, Y3, sizeof Y1) != 0 || memcmp(Y2, Y3, sizeof Y2) != 0) {
    printf("FAIL: the outputs of small_cnn_with_workspace (twice) and small_cnn differ\n");
    ++failures;
  }
  for (int i = 0; i < SMALL_CNN_Y_SIZE; ++i) {
    if (!(fabsf(Y1[i] - expected[i]) <= 1e-5f + 1e-5f * fabsf(expected[i]))) {
      printf("FAIL: Y[%d] = %.9g, texc run's %.9g\n", i, Y1[i], expected[i]);
      ++failures;
      break;
    }
  }
  if (failures) return 1;
  printf("PASS: small_cnn_with_workspace x2 == small_cnn == texc run's output; %ld allocation in small_cnn (its "
         "workspace), none with the caller's workspace, the kernels' scratch included\n", plain);
  return 0;
}
