#!/usr/bin/env python3
"""What a caller's workspace saves (docs/graph.md, "A caller's workspace"): an op compiled as a
graph of kernels called through its entry `OP` (which allocates its workspace on every call) and
through `OP_with_workspace` (one workspace for every call), alternately, from a C program built
against the compiled object and header. Prints the CPU time of the process per call (with 1 thread
this is the call's own time even on a loaded machine) and the allocations per call (malloc,
calloc, realloc, aligned_alloc, posix_memalign and memalign counted: the entry's workspace and the
kernels' own scratch buffers over 64 KB).

usage: graph_workspace.py TEXC FILE.tex [--weights W] [--rounds N] [--runs R] [texc flags...]
  e.g. graph_workspace.py build/tools/texc/texc r18.tex --weights r18.weights
The op is the file's only op; an op with a prepare function has it called once first. Inputs
are fixed small values (the time does not depend on them). Needs cc and build/runtime/libtexrt.a
beside TEXC's build (or TEXC_TEXRT=path).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def params(header, fn):
    m = re.search(r'^void ' + re.escape(fn) + r'\((.*)\);$', header, re.M)
    return [p.split('* ')[1] for p in m.group(1).split(', ')] if m else None


def size_macro(header, fn, name):
    macro = (fn + '_' + name).upper() + '_SIZE'
    if not re.search(r'^#define ' + re.escape(macro) + ' ', header, re.M):
        sys.exit('graph_workspace.py: the header has no ' + macro)
    return macro


PRELUDE = r'''#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "op.h"
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
static atomic_long allocations;
void* malloc(size_t s) { atomic_fetch_add(&allocations, 1); return __libc_malloc(s); }
void* calloc(size_t a, size_t b) { atomic_fetch_add(&allocations, 1); return __libc_calloc(a, b); }
void* realloc(void* p, size_t s) { atomic_fetch_add(&allocations, 1); return __libc_realloc(p, s); }
void* aligned_alloc(size_t a, size_t s) { atomic_fetch_add(&allocations, 1); return __libc_memalign(a, s); }
void* memalign(size_t a, size_t s) { atomic_fetch_add(&allocations, 1); return __libc_memalign(a, s); }
int posix_memalign(void** p, size_t a, size_t s) {
  atomic_fetch_add(&allocations, 1);
  *p = __libc_memalign(a, s);
  return *p ? 0 : 12;
}
static float* tensor(long count) {
  float* p = __libc_memalign(64, (size_t)(count * 4 + 63) / 64 * 64);
  for (long i = 0; i < count; ++i) p[i] = (float)((i * 7919) % 2001) / 20000.0f - 0.05f;
  return p;
}
static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}
'''


def program(header, op):
    prepare = params(header, op + '_prepare')
    main = params(header, op)
    if main is None or params(header, op + '_with_workspace') is None:
        sys.exit('graph_workspace.py: op %s has no %s_with_workspace (not a graph of kernels?)' % (op, op))
    lines = [PRELUDE, 'int main(int argc, char** argv) {', '  int rounds = atoi(argv[1]);']
    made = set()
    for fn, names in ((op + '_prepare', prepare or []), (op, main)):
        for name in names:
            if name not in made:
                lines.append('  float* %s = tensor(%s);' % (name, size_macro(header, fn, name)))
                made.add(name)
    if prepare:
        lines.append('  %s_prepare(%s);' % (op, ', '.join(prepare)))
    args = ', '.join(main)
    ws = op.upper() + '_WORKSPACE'
    lines += [
        '  void* workspace = __libc_memalign(%s_ALIGNMENT, %s_BYTES);' % (ws, ws),
        '  %s(%s);' % (op, args), '  %s_with_workspace(%s, workspace);' % (op, args),
        '  double plain_ms = 0, with_ms = 0;', '  long plain_allocations = 0, with_allocations = 0;',
        '  for (int r = 0; r < rounds; ++r) {',
        '    double t0 = cpu_ms();', '    allocations = 0;', '    %s(%s);' % (op, args),
        '    plain_allocations += allocations;', '    double t1 = cpu_ms();', '    allocations = 0;',
        '    %s_with_workspace(%s, workspace);' % (op, args), '    with_allocations += allocations;',
        '    double t2 = cpu_ms();', '    plain_ms += t1 - t0;', '    with_ms += t2 - t1;', '  }',
        '  printf("%%s: %%.3f ms CPU, %%.1f allocations per call; %%s_with_workspace: %%.3f ms CPU, %%.1f allocations '
        'per call (%%d rounds, %%d bytes of workspace)\\n", "%s", plain_ms / rounds, (double)plain_allocations / rounds, '
        '"%s", with_ms / rounds, (double)with_allocations / rounds, rounds, %s_BYTES);' % (op, op, ws),
        '  return 0;', '}']
    return '\n'.join(lines) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('texc')
    parser.add_argument('file')
    parser.add_argument('--rounds', type=int, default=20)
    parser.add_argument('--runs', type=int, default=3)
    args, flags = parser.parse_known_args()
    texc = os.path.realpath(args.texc)
    texrt = os.environ.get('TEXC_TEXRT') or os.path.join(os.path.dirname(texc), '..', '..', 'runtime', 'libtexrt.a')
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([texc, args.file, '--target', 'x86', '-o', os.path.join(work, 'op')] + flags, check=True)
        header = open(os.path.join(work, 'op.h')).read()
        ops = [m.group(1) for m in re.finditer(r'^#define (\w+)_WORKSPACE_BYTES ', header, re.M)]
        if len(ops) != 1:
            sys.exit('graph_workspace.py: want one graph op in %s, found %d' % (args.file, len(ops)))
        op = next(name for name in re.findall(r'^void (\w+)_with_workspace\(', header, re.M)
                  if name.upper() == ops[0])
        with open(os.path.join(work, 'bench.c'), 'w') as f:
            f.write(program(header, op))
        exe = os.path.join(work, 'bench')
        subprocess.run(['cc', '-std=c11', '-O1', '-I', work, os.path.join(work, 'bench.c'), os.path.join(work, 'op.o'),
                        texrt, '-lstdc++', '-lpthread', '-lm', '-o', exe], check=True)
        env = dict(os.environ, TEXC_NUM_THREADS=os.environ.get('TEXC_NUM_THREADS', '1'))
        for _ in range(args.runs):
            subprocess.run([exe, str(args.rounds)], check=True, env=env)


if __name__ == '__main__':
    main()
