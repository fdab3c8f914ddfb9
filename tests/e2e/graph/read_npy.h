/* read_npy: one tensor of `texc run --save-io DIR` (DIR/OP.NAME.npy, NumPy's format 1 or 2, C
 * order) into `out`, for the C programs of these tests. `descr` is the dtype NumPy writes ("<f4",
 * "|i1"), `element_bytes` its size. Returns 0 (with a message on stderr) when the file is not an
 * array of that type with exactly `count` elements. */
#pragma once
#include <stdio.h>
#include <string.h>

static int read_npy(const char* dir, const char* op, const char* name, const char* descr, size_t element_bytes,
                    void* out, long count) {
  char path[4096], quoted[32];
  snprintf(path, sizeof path, "%s/%s.%s.npy", dir, op, name);
  snprintf(quoted, sizeof quoted, "'%s'", descr);
  FILE* f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "cannot open %s\n", path), 0;
  unsigned char head[12];
  int ok = fread(head, 1, 10, f) == 10 && memcmp(head, "\x93NUMPY", 6) == 0;
  long header_bytes = 0;
  if (ok && head[6] == 1) header_bytes = head[8] | (head[9] << 8);
  else if (ok && fread(head + 10, 1, 2, f) == 2) header_bytes = head[8] | (head[9] << 8) | (head[10] << 16) | ((long)head[11] << 24);
  char header[4096];
  ok = ok && header_bytes > 0 && header_bytes < (long)sizeof header && fread(header, 1, (size_t)header_bytes, f) == (size_t)header_bytes;
  if (ok) header[header_bytes] = 0;
  ok = ok && strstr(header, quoted) && strstr(header, "'fortran_order': False");
  ok = ok && fread(out, element_bytes, (size_t)count, f) == (size_t)count && fgetc(f) == EOF;
  fclose(f);
  if (!ok) fprintf(stderr, "%s is not a %s .npy of %ld elements\n", path, descr, count);
  return ok;
}
