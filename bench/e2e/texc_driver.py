"""The C program that runs a compiled model for run_e2e.py: generated from the op's header (`texc
MODEL.onnx --op model -o STEM` writes STEM.o, STEM.h and STEM.weights). It loads STEM.weights
through the C API (runtime/texrt_weights.h), each tensor checked against the header's shape
macros, calls model_prepare once (untimed) when the header declares it, reads the one data input
(the op's input the container has no tensor for) from X.bin (raw f32), calls model untimed for at
least 100 ms (warm-up), then REPEAT timed calls (CLOCK_MONOTONIC around each; with E2E_CPU_CLOCK set in
the environment, CLOCK_PROCESS_CPUTIME_ID), prints {"times_ms", "median_ms", "min_ms"}
and writes the first output to Y.bin. Threads: TEXC_NUM_THREADS.

usage (as a module): write_driver(header_path, op, c_path)

write_profile_driver(header_path, op, c_path) writes the program profile_kernels.py runs instead:
the same loading, then every kernel OP_kN of a graph (docs/graph.md) called on buffers of its own
(a tensor is one buffer, named as the header names it: a kernel reads what an earlier one wrote),
in order, REPEAT passes after 100 ms of warm-up passes, each kernel timed in each pass (the median;
as ONNX Runtime's profiler times its nodes), then the entry OP alone (REPEAT calls after 100 ms of
warm-up, the median); one JSON line per kernel. usage of the program: STEM.weights X.bin REPEAT.
"""
import re


def prototypes(header):
    """{function name: [(is_input, c type, name)]} of the header's `void f(...);` lines."""
    out = {}
    for m in re.finditer(r"^void (\w+)\((.*)\);$", header, re.M):
        params = []
        for p in m.group(2).split(", "):
            pm = re.match(r"(const )?(\w+)\* (\w+)$", p.strip())
            params.append((bool(pm.group(1)), pm.group(2), pm.group(3)))
        out[m.group(1)] = params
    return out


# What both generated programs start with: the includes, the clock, the weights' lookup, reading
# the input. `buffer` (how a tensor is allocated) differs.
_PRELUDE = r'''#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "%(header)s"
#include "runtime/texrt_weights.h"

static double now_ms(void) {
  /* E2E_CPU_CLOCK set: the process's CPU time (steadier than the wall clock on a loaded machine at
     1 thread; with several threads it sums them) */
  static int cpu = -1;
  if (cpu < 0) cpu = getenv("E2E_CPU_CLOCK") != 0;
  struct timespec t;
  clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
%(buffer)s
/* The tensor NAME (or ALT: the header adds '_' to a parameter named like a C keyword), checked
   against the header's shape; NULL when the container has neither. */
static const void* optional_weight(const texrt_weights* w, const char* name, const char* alt, int rank,
                                   const int64_t* shape) {
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < texrt_weights_count(w); ++i) {
      const char* n;
      texrt_weights_entry(w, i, &n, 0, 0, 0, 0);
      if (strcmp(n, pass ? alt : name)) continue;
      const void* p = texrt_weights_get(w, n, "f32", rank, shape);
      if (!p) {
        fprintf(stderr, "driver: %%s\n", texrt_weights_last_error());
        exit(1);
      }
      return p;
    }
  return 0;
}
static const void* weight(const texrt_weights* w, const char* name, const char* alt, int rank, const int64_t* shape) {
  const void* p = optional_weight(w, name, alt, rank, shape);
  if (!p) {
    fprintf(stderr, "driver: the weights have no tensor '%%s'\n", name);
    exit(1);
  }
  return p;
}
static void* read_input(const char* path, size_t bytes, int* count) {
  void* p = buffer(bytes);
  FILE* f = fopen(path, "rb");
  if (!f || fread(p, 1, bytes, f) != bytes) {
    fprintf(stderr, "driver: cannot read %%zu bytes from %%s\n", bytes, path);
    exit(1);
  }
  fclose(f);
  ++*count;
  return p;
}
static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}
'''


def _prelude(header_path, buffer):
    return _PRELUDE % {"header": header_path, "buffer": buffer}


def write_driver(header_path, op, c_path):
    header = open(header_path).read()
    protos = prototypes(header)
    if op not in protos:
        raise RuntimeError("%s declares no function %s" % (header_path, op))
    prepare = protos.get(op + "_prepare")
    lines = []

    def macro(func, name):
        return (func + "_" + re.sub(r"\W", "_", name)).upper()

    prepared = set()
    if prepare:
        for is_input, ctype, name in prepare:
            m = macro(op + "_prepare", name)
            if is_input:
                lines.append('  const %s* p_%s = weight(w, "%s", "%s", %s_RANK, (const int64_t[])%s_SHAPE);' % (ctype, name, name, name.rstrip("_"), m, m))
            else:
                lines.append("  %s* %s = (%s*)buffer(%s_SIZE * sizeof(%s));" % (ctype, name, ctype, m, ctype))
                prepared.add(name)
        lines.append("  %s_prepare(%s);" % (op, ", ".join(("p_" if i else "") + n for i, _, n in prepare)))
    call = []
    for is_input, ctype, name in protos[op]:
        m = macro(op, name)
        if name in prepared:
            call.append(name)
        elif is_input:
            lines.append('  const %s* a_%s = optional_weight(w, "%s", "%s", %s_RANK, (const int64_t[])%s_SHAPE);' % (ctype, name, name, name.rstrip("_"), m, m))
            lines.append("  if (!a_%s) a_%s = (const %s*)read_input(argv[2], %s_SIZE * sizeof(%s), &data_inputs);" % (name, name, ctype, m, ctype))
            call.append("a_" + name)
        else:
            lines.append("  %s* o_%s = (%s*)buffer(%s_SIZE * sizeof(%s));" % (ctype, name, ctype, m, ctype))
            lines.append("  if (!first_output) { first_output = o_%s; first_output_bytes = %s_SIZE * sizeof(%s); }" % (name, m, ctype))
            call.append("o_" + name)
    body = "\n".join(lines)
    c = r'''/* Generated by bench/e2e/texc_driver.py from %(header)s: runs op %(op)s (see texc_driver.py). */
%(prelude)s
int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %%s STEM.weights X.bin Y.bin REPEAT\n", argv[0]);
    return 2;
  }
  texrt_weights* w = texrt_weights_load(argv[1]);
  if (!w) {
    fprintf(stderr, "driver: %%s\n", texrt_weights_last_error());
    return 1;
  }
  int data_inputs = 0;
  void* first_output = 0;
  size_t first_output_bytes = 0;
%(body)s
  if (data_inputs != 1) {
    fprintf(stderr, "driver: %%d inputs of %(op)s are not in the weights (one data input expected)\n", data_inputs);
    return 1;
  }
  int repeat = atoi(argv[4]);
  double* times = malloc(sizeof(double) * (repeat > 0 ? repeat : 1));
  /* warm-up: calls for at least 100 ms (caches, page faults, clocks), as ort_bench.js */
  for (double start = now_ms(); now_ms() - start < 100;) %(op)s(%(call)s);
  for (int i = 0; i < repeat; ++i) {
    double t0 = now_ms();
    %(op)s(%(call)s);
    times[i] = now_ms() - t0;
  }
  FILE* f = fopen(argv[3], "wb");
  if (!f || fwrite(first_output, 1, first_output_bytes, f) != first_output_bytes) return 1;
  fclose(f);
  printf("{\"times_ms\": [");
  for (int i = 0; i < repeat; ++i) printf("%%s%%.6f", i ? ", " : "", times[i]);
  qsort(times, repeat, sizeof(double), by_value);
  printf("], \"median_ms\": %%.6f, \"min_ms\": %%.6f}\n", times[repeat / 2], times[0]);
  texrt_weights_free(w);
  return 0;
}
''' % {"header": header_path, "op": op, "body": body, "call": ", ".join(call),
       "prelude": _prelude(header_path, "static void* buffer(size_t bytes) { return aligned_alloc(64, (bytes + 63) / 64 * 64); }")}
    open(c_path, "w").write(c)


def write_profile_driver(header_path, op, c_path):
    """The per-kernel timing program (see the module's doc); returns the kernels' names in order."""
    header = open(header_path).read()
    protos = prototypes(header)
    kernels = sorted((f for f in protos if re.fullmatch(re.escape(op) + r"_k\d+", f)), key=lambda f: int(f.rsplit("k", 1)[1]))
    if not kernels:
        raise RuntimeError("%s declares no kernels %s_kN (the op is one kernel: docs/graph.md)" % (header_path, op))
    lines, have = [], set()

    def macro(func, name):
        return (func + "_" + re.sub(r"\W", "_", name)).upper()

    def tensor(func, is_input, ctype, name):
        if name in have:
            return "b_" + name
        m = macro(func, name)
        have.add(name)
        if is_input:
            lines.append('  %s* b_%s = (%s*)optional_weight(w, "%s", "%s", %s_RANK, (const int64_t[])%s_SHAPE);'
                         % (ctype, name, ctype, name, name.rstrip("_"), m, m))
            lines.append("  if (!b_%s) b_%s = (%s*)read_input(argv[2], %s_SIZE * sizeof(%s), &data_inputs);"
                         % (name, name, ctype, m, ctype))
        else:
            lines.append("  %s* b_%s = (%s*)buffer(%s_SIZE * sizeof(%s));" % (ctype, name, ctype, m, ctype))
        return "b_" + name

    prepare = protos.get(op + "_prepare")
    if prepare:
        args = [tensor(op + "_prepare", i, c, n) for i, c, n in prepare]
        lines.append("  %s_prepare(%s);" % (op, ", ".join(args)))
    entry_args = [tensor(op, i, c, n) for i, c, n in protos[op]]
    timed = []
    for k in kernels:
        args = [tensor(k, i, c, n) for i, c, n in protos[k]]
        out = [(c, n) for i, c, n in protos[k] if not i][-1]
        lines.append("  %s(%s);" % (k, ", ".join(args)))
        timed.append((k, ", ".join(args), macro(k, out[1])))
    lines.append("  if (data_inputs != 1) { fprintf(stderr, \"driver: %%d data inputs (one expected)\\n\", data_inputs); return 1; }")
    # In sequence, as the entry runs them (each kernel finds what the earlier ones left in the
    # caches, its weights cold when the network's do not fit): warm-up passes for 100 ms, then
    # REPEAT passes, each kernel timed in each; then the entry alone, REPEAT calls.
    lines.append("  double* seq = malloc(sizeof(double) * repeat * %d);" % len(timed))
    lines.append("  for (double start = now_ms(); now_ms() - start < 100;) {")
    for k, args, m in timed:
        lines.append("    %s(%s);" % (k, args))
    lines.append("  }")
    lines.append("  for (int i = 0; i < repeat; ++i) {")
    lines.append("    double t0 = now_ms(), t1;")
    for n, (k, args, m) in enumerate(timed):
        lines.append("    %s(%s);" % (k, args))
        lines.append("    t1 = now_ms(); seq[%d * repeat + i] = t1 - t0; t0 = t1;" % n)
    lines.append("  }")
    for n, (k, args, m) in enumerate(timed):
        lines.append('  report("%s", seq + %d * repeat, repeat, %s_SIZE, (const long long[])%s_SHAPE, %s_RANK);' % (k, n, m, m, m))
    k, args, m = op, ", ".join(entry_args), macro(op, [n for i, c, n in protos[op] if not i][-1])
    lines.append("  for (double start = now_ms(); now_ms() - start < 100;) %s(%s);" % (k, args))
    lines.append("  for (int i = 0; i < repeat; ++i) { double t0 = now_ms(); %s(%s); times[i] = now_ms() - t0; }" % (k, args))
    lines.append('  report("%s", times, repeat, %s_SIZE, (const long long[])%s_SHAPE, %s_RANK);' % (k, m, m, m))
    c = r"""/* Generated by bench/e2e/texc_driver.py from %(header)s: times each kernel of op %(op)s (see texc_driver.py). */
%(prelude)s
static void report(const char* kernel, double* times, int repeat, long long elements, const long long* shape, int rank) {
  qsort(times, repeat, sizeof(double), by_value);
  printf("{\"kernel\": \"%%s\", \"median_ms\": %%.6f, \"min_ms\": %%.6f, \"out_elements\": %%lld, \"out_shape\": \"[", kernel,
         times[repeat / 2], times[0], elements);
  for (int i = 0; i < rank; ++i) printf("%%s%%lld", i ? ", " : "", shape[i]);
  printf("]\"}\n");
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %%s STEM.weights X.bin REPEAT\n", argv[0]);
    return 2;
  }
  texrt_weights* w = texrt_weights_load(argv[1]);
  if (!w) {
    fprintf(stderr, "driver: %%s\n", texrt_weights_last_error());
    return 1;
  }
  int data_inputs = 0;
  int repeat = atoi(argv[3]);
  if (repeat < 1) repeat = 1;
  double* times = malloc(sizeof(double) * repeat);
%(body)s
  texrt_weights_free(w);
  return 0;
}
""" % {"header": header_path, "op": op, "body": "\n".join(lines),
       "prelude": _prelude(header_path, "static void* buffer(size_t bytes) { return calloc(1, (bytes + 63) / 64 * 64 + 64); }")}
    open(c_path, "w").write(c)
    return kernels
