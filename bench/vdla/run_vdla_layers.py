#!/usr/bin/env python3
"""ResNet-18 C2-C12 in int8 on the VDLA simulator (docs/workloads.md, "int8 convolutions").

For each layer, writes a .tex that calls nn.int8's conv2d_int8 at the layer's shape (blocked layout:
input 1,IC/16,H,W,16; weights OC/16,IC/16,K,K,16,16; padding K/2; then >> shift and a clip to int8),
runs `texc run --target vdla` (which checks every sampled output against the reference
interpreter, bit for bit) without virtual threads (--knob C8V_VT=1) and with two (C8V_VT=2), and
prints a Markdown table: cycles, GEMM utilization, and DRAM bytes against the layer's minimum
(input, weights and output each moved once).

The tile (knobs C8V_TH output rows x C8V_FB channel blocks) is chosen per layer by `pick_tile`:
among the tiles that leave at least two tiles of channel blocks (one per virtual thread) and whose
two virtual-thread copies fit the ACC, INP and WGT buffers of the default
configuration, the one that moves the fewest DRAM bytes (the input with its halo once per tile of
channel blocks, the weights once per tile of rows), then the biggest. The same tile is used with
and without virtual threads.

    bench/vdla/run_vdla_layers.py [--texc build/tools/texc/texc] [--layers C2,C9] [--out table.md]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# name: (H=W, IC, OC, K, stride)
LAYERS = {
    'C2': (56, 64, 64, 3, 1), 'C3': (56, 64, 64, 1, 1), 'C4': (56, 64, 128, 3, 2), 'C5': (56, 64, 128, 1, 2),
    'C6': (28, 128, 128, 3, 1), 'C7': (28, 128, 256, 3, 2), 'C8': (28, 128, 256, 1, 2), 'C9': (14, 256, 256, 3, 1),
    'C10': (14, 256, 512, 3, 2), 'C11': (14, 256, 512, 1, 2), 'C12': (7, 512, 512, 3, 1),
}
STATS = re.compile(r'vdla: (\d+) cycles, GEMM utilization ([\d.]+)%.*DRAM bytes INP (\d+) WGT (\d+) ACC (\d+) '
                   r'OUT (\d+) UOP (\d+)')


def pick_tile(h, ic, oc, k, s):
    pad = k // 2
    oh = (h + 2 * pad - k) // s + 1
    wp = h + 2 * pad
    best = None
    for th in sorted({t for t in (1, 2, 4, 7, 8, 14, 28, 56) if t <= oh} | {oh}):
        for fb in (1, 2, 4, 8, 16, 32):
            if fb > max(1, oc // 16 // 2):  # at least two tiles of channel blocks: one per virtual thread
                continue
            acc = th * oh * fb * 2             # rows of 16 int32, two virtual threads
            inp = ((th - 1) * s + k) * wp * 2  # rows of 16 int8
            wgt = fb * k * k * 2               # 16 x 16 tiles
            if acc > 2048 or inp > 2048 or wgt > 1024:
                continue
            tiles_h, tiles_f = -(-oh // th), -(-(oc // 16) // fb)
            rows_in = min(h + 2 * pad, (th - 1) * s + k)
            dram = tiles_f * tiles_h * rows_in * wp * ic + tiles_h * oc * ic * k * k
            key = (-dram, th * fb, th)
            if best is None or key > best[0]:
                best = (key, th, fb)
    return best[1], best[2]


def run(texc, path, knobs):
    cmd = [texc, 'run', path, '--target', 'vdla'] + sum((['--knob', k] for k in knobs), [])
    env = dict(os.environ, TEXC_STDLIB=os.path.join(ROOT, 'stdlib'))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = STATS.search(r.stdout)
    if r.returncode != 0 or not m or ' PASS ' not in r.stdout:
        sys.exit('FAILED: %s\n%s%s' % (' '.join(cmd), r.stdout, r.stderr))
    cycles, util = int(m.group(1)), float(m.group(2))
    dram = sum(int(m.group(i)) for i in range(3, 8))
    return cycles, util, dram


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--texc', default=os.path.join(ROOT, 'build', 'tools', 'texc', 'texc'))
    ap.add_argument('--layers', default=','.join(LAYERS))
    ap.add_argument('--out')
    args = ap.parse_args()
    lines = ['| layer | shape (H, IC, OC, K, s) | tile (rows x blocks) | cycles, 1 thread | GEMM util. '
             '| cycles, 2 virtual threads | GEMM util. | DRAM bytes / minimum |', '|---|---|---|---|---|---|---|---|']
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.layers.split(','):
            h, ic, oc, k, s = LAYERS[name]
            pad = k // 2
            oh = (h + 2 * pad - k) // s + 1
            path = os.path.join(tmp, name + '.tex')
            with open(path, 'w') as f:
                f.write('import nn.int8\n\nop %s(X: i8[1, %d, %d, %d, 16], W: i8[%d, %d, %d, %d, 16, 16]) -> Y {\n'
                        '  compute {\n    Y = conv2d_int8(X, W, shift = 8, stride = %d, pad = %d)\n  }\n}\n'
                        % (name, ic // 16, h, h, oc // 16, ic // 16, k, k, s, pad))
            th, fb = pick_tile(h, ic, oc, k, s)
            tile = ['C8V_TH=%d' % th, 'C8V_FB=%d' % fb]
            c1, u1, _ = run(args.texc, path, tile + ['C8V_VT=1'])
            cv, uv, dram = run(args.texc, path, tile + ['C8V_VT=2'])
            minimum = h * h * ic + oc * ic * k * k + oh * oh * oc
            lines.append('| %s | %d, %d, %d, %d, %d | %d x %d | %d | %.1f%% | %d | %.1f%% | %.2f |'
                         % (name, h, ic, oc, k, s, th, fb, c1, u1, cv, uv, dram / minimum))
            print(lines[-1], flush=True)
    text = '\n'.join(lines) + '\n'
    if args.out:
        with open(args.out, 'w') as f:
            f.write(text)
    print(text)


if __name__ == '__main__':
    main()
