#!/usr/bin/env python3
"""Assembles the PTX of every stdlib test op with the CUDA toolkit's ptxas, for each --arch.

For every tests/stdlib/*.tex file: `texc FILE --target cuda --emit ptx --arch ARCH` (one kernel per
op of the file, its `schedule cuda` or the default GPU schedule; an op calling several layers is a
graph of kernels OP_k0, OP_k1, ..., each with its anchor's schedule: docs/graph.md), then `ptxas -v --gpu-name ARCH`
on the result. Fails (exit 1) when texc or ptxas reports an error; otherwise prints one row per
kernel: registers per thread, shared memory bytes per block (static), and local memory (the bytes
of its stack frame, where an array indexed by a variable lives, plus spill stores and loads).

usage: ptxas_report.py TEXC [REPO_ROOT] [--arch sm_80,sm_90] [--small]
  --small   only the *_small ops (the typical sizes are the default too)
Exit 77 (ctest's skip) with a SKIP line when ptxas is not installed: $TEXC_PTXAS, else
/usr/local/cuda/bin/ptxas, else ptxas on PATH.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


def find_ptxas():
    env = os.environ.get('TEXC_PTXAS')
    if env:
        return env if os.access(env, os.X_OK) else None
    if os.access('/usr/local/cuda/bin/ptxas', os.X_OK):
        return '/usr/local/cuda/bin/ptxas'
    return shutil.which('ptxas')


def parse_ptxas(text):
    """kernel name -> {'regs', 'smem', 'spill', 'stack'} from `ptxas -v` output."""
    kernels, current = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
            kernels[current] = {'regs': 0, 'smem': 0, 'spill': 0, 'stack': 0}
            continue
        if current is None:
            continue
        m = re.search(r'(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads', line)
        if m:
            kernels[current]['stack'] = int(m.group(1))
            kernels[current]['spill'] = int(m.group(2)) + int(m.group(3))
        m = re.search(r'Used (\d+) registers', line)
        if m:
            kernels[current]['regs'] = int(m.group(1))
            s = re.search(r'(\d+) bytes smem', line)
            kernels[current]['smem'] = int(s.group(1)) if s else 0
    return kernels


def main():
    args = [a for a in sys.argv[1:]]
    if not args or args[0] in ('-h', '--help'):
        print(__doc__)
        return 2
    archs = ['sm_80', 'sm_90']
    small = False
    positional = []
    i = 0
    while i < len(args):
        if args[i] == '--arch' and i + 1 < len(args):
            archs = args[i + 1].split(',')
            i += 2
            continue
        if args[i] == '--small':
            small = True
        else:
            positional.append(args[i])
        i += 1
    texc = positional[0]
    root = positional[1] if len(positional) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ptxas = find_ptxas()
    if not ptxas:
        print('SKIP: no ptxas (set TEXC_PTXAS or install the CUDA toolkit in /usr/local/cuda)')
        return 77
    env = dict(os.environ, TEXC_STDLIB=os.path.join(root, 'stdlib'))

    rows = {}  # (file, kernel) -> {arch: stats}
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for test in sorted(glob.glob(os.path.join(root, 'tests', 'stdlib', '*.tex'))):
            name = os.path.basename(test)
            ops = re.findall(r'^op\s+(\w+)', open(test).read(), re.M)
            for arch in archs:
                ptx = os.path.join(tmp, name + '.' + arch + '.ptx')
                r = subprocess.run([texc, test, '--target', 'cuda', '--emit', 'ptx', '--arch', arch, '-o', ptx],
                                   capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    failures += 1
                    print('FAIL texc %s --arch %s (exit %d)\n    %s' % (name, arch, r.returncode,
                                                                     (r.stdout + r.stderr).strip().replace('\n', '\n    ')))
                    continue
                r = subprocess.run([ptxas, '-v', '--gpu-name', arch, ptx, '-o', os.devnull], capture_output=True, text=True)
                if r.returncode != 0:
                    failures += 1
                    print('FAIL ptxas %s --gpu-name %s (exit %d)\n    %s' % (name, arch, r.returncode,
                                                                         (r.stdout + r.stderr).strip().replace('\n', '\n    ')))
                    continue
                kernels = parse_ptxas(r.stdout + r.stderr)
                for op in ops:
                    if small and not op.endswith('_small'):
                        continue
                    # One kernel named as the op, or an op compiled as a graph of kernels
                    # (docs/graph.md): OP_k0, OP_k1, ... (the host entry OP is no PTX kernel).
                    mine = [k for k in kernels if k == op or re.fullmatch(re.escape(op) + r'_k\d+', k)]
                    if not mine:
                        failures += 1
                        print('FAIL %s: ptxas reported no kernel %s (or %s_k0, ...) for %s' % (name, op, op, arch))
                        continue
                    for k in mine:
                        rows.setdefault((name, k), {})[arch] = kernels[k]

    header = '| file | kernel | ' + ' | '.join('%s regs | %s smem B | %s local B' % (a, a, a) for a in archs) + ' |'
    print(header)
    print('|' + '---|' * (2 + 3 * len(archs)))
    for (name, op), per_arch in sorted(rows.items()):
        cells = []
        for a in archs:
            k = per_arch.get(a)
            cells += ['-', '-', '-'] if k is None else [str(k['regs']), str(k['smem']), str(k['stack'] + k['spill'])]
        print('| %s | %s | %s |' % (name, op, ' | '.join(cells)))
    print('%d kernels, %d archs (%s), %d failed' % (len(rows), len(archs), ', '.join(archs), failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
