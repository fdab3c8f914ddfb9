#!/usr/bin/env python3
"""Randomised VDLA schedules: random shapes, strides, paddings, shifts, tile sizes (ragged too) and virtual
thread counts (1-4) of nn.int8's conv2d_int8 and dense_int8, each compiled for VDLA, run on the
simulator and compared bit for bit with the reference interpreter (`texc run --target vdla`).
A wrong value, a deadlock, an unbalanced stream or a hang (a time limit per case) is a failure,
printed with the file that reproduces it.

    random_vdla.py TEXC [--seconds S | --cases N] [--seed K]     (exit 0 only if every case passed)
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def conv_case(rng):
    k = rng.choice([1, 3, 3, 5])
    stride = rng.choice([1, 1, 2])
    pad = rng.randint(0, k // 2)
    h = rng.randint(max(1, k - 2 * pad), 12)
    w = rng.randint(max(1, k - 2 * pad), 12)
    cb, fb = rng.randint(1, 3), rng.randint(1, 7)
    shift = rng.randint(0, 8)
    th = rng.choice([8, 4, 2, 1, 14, 7])
    vt = rng.choice([1, 2, 4])
    fbt = rng.choice([4, 2, 1])  # channel blocks per tile: ragged over fb, so a thread may idle
    src = ('import nn.int8\n\nop case(X: i8[1, %d, %d, %d, 16], W: i8[%d, %d, %d, %d, 16, 16]) -> Y {\n'
           '  compute {\n    Y = conv2d_int8(X, W, shift = %d, stride = %d, pad = %d)\n  }\n}\n'
           % (cb, h, w, fb, cb, k, k, shift, stride, pad))
    return src, ['C8V_TH=%d' % th, 'C8V_VT=%d' % vt, 'C8V_FB=%d' % fbt]


def dense_case(rng):
    m, kb, nb = rng.randint(1, 9), rng.randint(1, 4), rng.randint(1, 4)
    src = ('import nn.int8\n\nop case(X: i8[%d, %d, 16], W: i8[%d, %d, 16, 16]) -> Y {\n'
           '  compute {\n    Y = dense_int8(X, W, shift = %d)\n  }\n}\n' % (m, kb, nb, kb, rng.randint(0, 8)))
    return src, []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('texc')
    ap.add_argument('--seconds', type=float, default=0)
    ap.add_argument('--cases', type=int, default=0)
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    if not args.seconds and not args.cases:
        args.seconds = 60
    rng = random.Random(args.seed)
    env = dict(os.environ, TEXC_STDLIB=os.path.join(ROOT, 'stdlib'))
    start, n, failed = time.time(), 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        while (args.cases and n < args.cases) or (args.seconds and time.time() - start < args.seconds):
            src, knobs = (conv_case if rng.random() < 0.75 else dense_case)(rng)
            path = os.path.join(tmp, 'case.tex')
            with open(path, 'w') as f:
                f.write(src)
            cmd = [args.texc, 'run', path, '--target', 'vdla', '--seed', str(n)] + sum((['--knob', k] for k in knobs), [])
            n += 1
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
                ok = r.returncode == 0 and ' PASS ' in r.stdout
                out = r.stdout + r.stderr
            except subprocess.TimeoutExpired:
                ok, out = False, 'timed out after 120 s (a hang)'
            if not ok:
                failed += 1
                keep = os.path.join(tempfile.gettempdir(), 'random_vdla_fail_%d.tex' % n)
                with open(keep, 'w') as f:
                    f.write(src)
                print('FAIL case %d (%s; %s):\n%s' % (n, keep, ' '.join(knobs), out))
    print('%d vdla schedules, %d failed (seed %d, %.0f s)' % (n, failed, args.seed, time.time() - start))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
