#!/usr/bin/env python3
"""Checks what the stdlib ops compute, independently of their .tex definitions.

`texc run` compares an op's compiled code with the reference interpreter, which evaluates the same
definition: it cannot notice a definition that computes the wrong thing (a pool that divides by the
wrong count, a blocked layout with its indices swapped). This script runs the *_small ops of
tests/stdlib/*.tex on the loop interpreter with --save-io, reads their inputs and outputs (.npy),
and compares every output with a plain Python implementation of the op written from its
documentation (docs/stdlib.md). No NumPy needed.

usage: check_semantics.py TEXC [REPO_ROOT]      exit 0 only if every case matched
"""
import math
import os
import struct
import subprocess
import sys
import tempfile


# --- .npy (little-endian f32, C order) and flat indexing ----------------------------------------

class Array:
    def __init__(self, shape, data):
        self.shape = tuple(shape)
        self.data = data

    def index(self, idx):
        flat = 0
        for i, n in zip(idx, self.shape):
            assert 0 <= i < n, (idx, self.shape)
            flat = flat * n + i
        return flat

    def __getitem__(self, idx):
        return self.data[self.index(idx)]


def zeros(shape):
    n = 1
    for s in shape:
        n *= s
    return Array(shape, [0.0] * n)


def points(shape):
    if not shape:
        yield ()
        return
    for i in range(shape[0]):
        for rest in points(shape[1:]):
            yield (i,) + rest


def load_npy(path):
    with open(path, 'rb') as f:
        raw = f.read()
    assert raw[:6] == b'\x93NUMPY', path
    major = raw[6]
    header_len = struct.unpack('<H' if major == 1 else '<I', raw[8:10] if major == 1 else raw[8:12])[0]
    start = (10 if major == 1 else 12) + header_len
    header = eval(raw[(10 if major == 1 else 12):start].decode('latin1'))  # a Python dict literal
    assert header['descr'] in ('<f4', '<f2', '<V2', '|i1') and not header['fortran_order'], (path, header)
    shape = header['shape']
    count = 1
    for s in shape:
        count *= s
    if header['descr'] == '|i1':
        return Array(shape, list(struct.unpack('<%db' % count, raw[start:start + count])))
    if header['descr'] == '<f2':
        return Array(shape, list(struct.unpack('<%de' % count, raw[start:start + 2 * count])))
    if header['descr'] == '<V2':  # bf16 (texc's .npy for it): the upper 16 bits of an f32
        bits = struct.unpack('<%dH' % count, raw[start:start + 2 * count])
        return Array(shape, [struct.unpack('<f', struct.pack('<I', b << 16))[0] for b in bits])
    return Array(shape, list(struct.unpack('<%df' % count, raw[start:start + 4 * count])))


def build(shape, fn):
    out = zeros(shape)
    for p in points(shape):
        out.data[out.index(p)] = fn(*p)
    return out


# --- reference implementations ------------------------------------------------------------------

def conv2d(X, W, stride=1, pad=0, dilation=1):
    N, C, H, Wd = X.shape
    F, _, KH, KW = W.shape
    OH = (H + 2 * pad - dilation * (KH - 1) - 1) // stride + 1
    OW = (Wd + 2 * pad - dilation * (KW - 1) - 1) // stride + 1

    def at(n, f, oy, ox):
        s = 0.0
        for c in range(C):
            for ry in range(KH):
                for rx in range(KW):
                    y, x = oy * stride + ry * dilation - pad, ox * stride + rx * dilation - pad
                    if 0 <= y < H and 0 <= x < Wd:
                        s += X[n, c, y, x] * W[f, c, ry, rx]
        return s
    return build((N, F, OH, OW), at)


def requantize(acc, shift):
    """int32 accumulator -> int8: arithmetic right shift, clip to [-128, 127]."""
    return max(-128, min(127, int(acc) >> shift))


def conv2d_int8_blocked(X, W, shift, stride=1, pad=0):
    """X[n, cb, h, w, ci], W[fb, cb, ry, rx, fo, ci] (nn.int8): int8 in, int8 out."""
    N, CB, H, Wd, BI = X.shape
    FB, _, KH, KW, BO, _ = W.shape
    OH = (H + 2 * pad - KH) // stride + 1
    OW = (Wd + 2 * pad - KW) // stride + 1

    def at(n, fb, oy, ox, fo):
        s = 0
        for cb in range(CB):
            for ry in range(KH):
                for rx in range(KW):
                    y, x = oy * stride + ry - pad, ox * stride + rx - pad
                    if 0 <= y < H and 0 <= x < Wd:
                        s += sum(X[n, cb, y, x, ci] * W[fb, cb, ry, rx, fo, ci] for ci in range(BI))
        return requantize(s, shift)
    return build((N, FB, OH, OW, BO), at)


def depthwise(X, W, stride=1, pad=0, dilation=1):
    N, C, H, Wd = X.shape
    F, _, KH, KW = W.shape
    mult = F // C
    OH = (H + 2 * pad - dilation * (KH - 1) - 1) // stride + 1
    OW = (Wd + 2 * pad - dilation * (KW - 1) - 1) // stride + 1

    def at(n, f, oy, ox):
        s = 0.0
        for ry in range(KH):
            for rx in range(KW):
                y, x = oy * stride + ry * dilation - pad, ox * stride + rx * dilation - pad
                if 0 <= y < H and 0 <= x < Wd:
                    s += X[n, f // mult, y, x] * W[f, 0, ry, rx]
        return s
    return build((N, F, OH, OW), at)


def pool(X, kernel, stride, pad, kind, count_include_pad=1):
    N, C, H, W = X.shape
    OH = (H + 2 * pad - kernel) // stride + 1
    OW = (W + 2 * pad - kernel) // stride + 1

    def at(n, c, oy, ox):
        vals, inside = [], 0
        for ry in range(kernel):
            for rx in range(kernel):
                y, x = oy * stride + ry - pad, ox * stride + rx - pad
                if 0 <= y < H and 0 <= x < W:
                    vals.append(X[n, c, y, x])
                    inside += 1
                else:
                    vals.append(None)
        if kind == 'max':
            return max(v for v in vals if v is not None)
        total = sum(v for v in vals if v is not None)
        return total / (kernel * kernel if count_include_pad else inside)
    return build((N, C, OH, OW), at)


def matmul(A, B):
    M, K = A.shape
    return build((M, B.shape[1]), lambda i, j: sum(A[i, k] * B[k, j] for k in range(K)))


def softmax_rows(X, log):
    M, N = X.shape
    out = zeros(X.shape)
    for i in range(M):
        row = [X[i, j] for j in range(N)]
        m = max(row)
        s = sum(math.exp(v - m) for v in row)
        for j in range(N):
            out.data[out.index((i, j))] = (row[j] - m - math.log(s)) if log else math.exp(row[j] - m) / s
    return out


def layer_norm(X, g, b, eps=1e-5):
    M, D = X.shape
    out = zeros(X.shape)
    for i in range(M):
        row = [X[i, j] for j in range(D)]
        mu = sum(row) / D
        var = sum((v - mu) ** 2 for v in row) / D
        for j in range(D):
            out.data[out.index((i, j))] = (row[j] - mu) / math.sqrt(var + eps) * g[(j,)] + b[(j,)]
    return out


def broadcast(A, B, op):
    shape = tuple(max(a, b) for a, b in zip(A.shape, B.shape))

    def pick(T, p):
        return T[tuple(0 if n == 1 else i for i, n in zip(p, T.shape))]
    return build(shape, lambda *p: op(pick(A, p), pick(B, p)))


def sqrt(v):
    return math.sqrt(v) if v >= 0 else math.nan  # random statistics: a negative variance gives NaN


def sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


def gelu(v):
    """The exact GELU (PyTorch's approximate='none'): x times the standard normal CDF at x."""
    return 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))


# Each case: test file (tests/stdlib/NAME.tex), op, output name, reference(inputs by name).
CASES = [
    ('conv2d', 'conv2d_pad1_small', 'Y', lambda t: conv2d(t['X'], t['W'], pad=1)),
    ('conv2d', 'conv2d_s2_small', 'Y', lambda t: conv2d(t['X'], t['W'], stride=2, pad=1)),
    ('conv2d', 'conv2d_k5_small', 'Y', lambda t: conv2d(t['X'], t['W'], stride=3, pad=2)),
    ('conv2d', 'conv2d_1x1_f17_small', 'Y', lambda t: conv2d(t['X'], t['W'])),
    ('conv2d', 'conv2d_1x1_s2_small', 'Y', lambda t: conv2d(t['X'], t['W'], stride=2)),
    ('conv2d_dilated', 'conv2d_dilated_s2_small', 'Y', lambda t: conv2d(t['X'], t['W'], stride=2, pad=1, dilation=3)),
    ('conv2d_nchwc', 'conv2d_nchwc_chain_small', 'Y', lambda t: conv2d(t['X'], t['W'], pad=1)),
    ('nchw_to_nchwc', 'nchw_to_nchwc_small', 'Y', lambda t: build(
        (2, 3, 3, 5, 4), lambda n, cb, h, w, ci: t['X'][n, cb * 4 + ci, h, w] if cb * 4 + ci < 11 else 0.0)),
    ('nchwc_to_nchw', 'nchwc_to_nchw_small', 'Y', lambda t: build(
        (2, 11, 3, 5), lambda n, c, h, w: t['X'][n, c // 4, h, w, c % 4])),
    ('oihw_to_oihwio', 'oihw_to_oihwio_small', 'Y', lambda t: build(
        (2, 2, 3, 2, 4, 8), lambda fb, cb, ry, rx, ci, fi:
        t['W'][fb * 8 + fi, cb * 4 + ci, ry, rx] if fb * 8 + fi < 10 and cb * 4 + ci < 7 else 0.0)),
    ('int8', 'conv2d_int8_small', 'Y', lambda t: conv2d_int8_blocked(t['X'], t['W'], 1, stride=2, pad=1)),
    ('int8', 'conv2d_int8_chain_small', 'Y', lambda t: (lambda acc: build(
        acc.shape, lambda *p: requantize(acc[p], 1)))(conv2d(t['X'], t['W'], pad=1))),
    ('int8', 'dense_int8_chain_small', 'Y', lambda t: build(
        (5, 19), lambda i, j: requantize(sum(t['X'][i, k] * t['W'][j, k] for k in range(37)), 2))),
    ('int8', 'dense_int8_small', 'Y', lambda t: build(
        (3, 2, 4), lambda m, nb, no: requantize(sum(t['X'][m, kb, ki] * t['W'][nb, kb, no, ki]
                                                    for kb in range(5) for ki in range(8)), 1))),
    ('int8', 'nchw_to_nchwc_int8_small', 'Y', lambda t: build(
        (2, 3, 3, 5, 4), lambda n, cb, h, w, ci: t['X'][n, cb * 4 + ci, h, w] if cb * 4 + ci < 11 else 0)),
    ('int8', 'nchwc_to_nchw_int8_small', 'Y', lambda t: build(
        (2, 11, 3, 5), lambda n, c, h, w: t['X'][n, c // 4, h, w, c % 4])),
    ('int8', 'oihw_to_oihwoi_int8_small', 'Y', lambda t: build(
        (2, 2, 3, 2, 8, 4), lambda fb, cb, ry, rx, fo, ci:
        t['W'][fb * 8 + fo, cb * 4 + ci, ry, rx] if fb * 8 + fo < 10 and cb * 4 + ci < 7 else 0)),
    ('int8', 'rows_to_blocks_int8_small', 'Y', lambda t: build(
        (3, 3, 8), lambda m, kb, ki: t['X'][m, kb * 8 + ki] if kb * 8 + ki < 21 else 0)),
    ('int8', 'blocks_to_rows_int8_small', 'Y', lambda t: build((3, 19), lambda m, c: t['X'][m, c // 8, c % 8])),
    ('int8', 'dense_weights_int8_small', 'Y', lambda t: build(
        (3, 3, 8, 16), lambda nb, kb, no, ki:
        t['W'][nb * 8 + no, kb * 16 + ki] if nb * 8 + no < 19 and kb * 16 + ki < 37 else 0)),
    ('depthwise_conv2d', 'depthwise_conv2d_mult2_small', 'Y', lambda t: depthwise(t['X'], t['W'], pad=1)),
    ('depthwise_conv2d', 'depthwise_conv2d_s3_dil2_small', 'Y',
     lambda t: depthwise(t['X'], t['W'], stride=3, pad=2, dilation=2)),
    ('depthwise_conv2d', 'depthwise_weights_nchwc_small', 'Y', lambda t: build(
        (3, 3, 3, 8), lambda fb, ry, rx, fi: t['W'][fb * 8 + fi, 0, ry, rx] if fb * 8 + fi < 20 else 0.0)),
    ('dense', 'dense_small', 'Y', lambda t: build(
        (3, 11), lambda i, j: sum(t['X'][i, k] * t['W'][j, k] for k in range(37)))),
    ('matmul', 'matmul_small', 'C', lambda t: matmul(t['A'], t['B'])),
    ('matmul_f16', 'matmul_f16_small', 'C', lambda t: matmul(t['A'], t['B'])),
    ('matmul_bf16', 'matmul_bf16_small', 'C', lambda t: matmul(t['A'], t['B'])),
    ('batch_matmul', 'batch_matmul_small', 'C', lambda t: build(
        (3, 5, 19), lambda b, i, j: sum(t['A'][b, i, k] * t['B'][b, k, j] for k in range(9)))),
    ('max_pool2d', 'max_pool2d_small', 'Y', lambda t: pool(t['X'], 3, 2, 1, 'max')),
    ('max_pool2d', 'max_pool2d_s3_small', 'Y', lambda t: pool(t['X'], 3, 3, 0, 'max')),
    ('avg_pool2d', 'avg_pool2d_small', 'Y', lambda t: pool(t['X'], 3, 2, 1, 'avg', count_include_pad=0)),
    ('avg_pool2d', 'avg_pool2d_incl_small', 'Y', lambda t: pool(t['X'], 3, 1, 1, 'avg', count_include_pad=1)),
    ('avg_pool2d', 'avg_pool2d_s3_small', 'Y', lambda t: pool(t['X'], 2, 3, 1, 'avg', count_include_pad=0)),
    ('global_avg_pool2d', 'global_avg_pool2d_small', 'Y', lambda t: build(
        (2, 3, 1, 1), lambda n, c, y, x: sum(t['X'][n, c, h, w] for h in range(5) for w in range(7)) / 35)),
    ('max_pool2d_nchwc', 'max_pool2d_nchwc_small', 'Y', lambda t: (lambda P: build(
        (2, 3, 4, 5, 4), lambda n, cb, oy, ox, ci: P[n, cb * 4 + ci, oy, ox]))(pool(build(
            (2, 12, 7, 9), lambda n, c, h, w: t['X'][n, c // 4, h, w, c % 4]), 3, 2, 1, 'max'))),
    ('global_avg_pool2d_nchwc', 'global_avg_pool2d_nchwc_small', 'Y', lambda t: build(
        (2, 3, 1, 1, 4), lambda n, cb, y, x, ci: sum(t['X'][n, cb, h, w, ci] for h in range(5) for w in range(7)) / 35)),
    ('relu', 'relu_small', 'Y', lambda t: build(t['X'].shape, lambda *p: max(t['X'][p], 0.0))),
    ('leaky_relu', 'leaky_relu_slope_small', 'Y', lambda t: build(
        t['X'].shape, lambda *p: t['X'][p] if t['X'][p] > 0 else t['X'][p] * 0.2)),
    ('sigmoid_act', 'sigmoid_act_small', 'Y', lambda t: build(t['X'].shape, lambda *p: sigmoid(t['X'][p]))),
    ('tanh_act', 'tanh_act_small', 'Y', lambda t: build(t['X'].shape, lambda *p: math.tanh(t['X'][p]))),
    ('gelu', 'gelu_small', 'Y', lambda t: build(t['X'].shape, lambda *p: gelu(t['X'][p]))),
    ('gelu', 'gelu_wide_small', 'Y', lambda t: build(t['X'].shape, lambda *p: gelu(t['X'][p]))),
    ('softplus', 'softplus_small', 'Y', lambda t: build(t['X'].shape, lambda *p: math.log(1 + math.exp(t['X'][p])))),
    ('softplus', 'softplus_wide_small', 'Y', lambda t: build(t['X'].shape, lambda *p: math.log(1 + math.exp(t['X'][p])))),
    ('softmax', 'softmax_small', 'Y', lambda t: softmax_rows(t['X'], log=False)),
    ('log_softmax', 'log_softmax_small', 'Y', lambda t: softmax_rows(t['X'], log=True)),
    ('batch_norm', 'batch_norm_small', 'Y', lambda t: build(
        t['X'].shape, lambda n, c, h, w: (t['X'][n, c, h, w] - t['mean'][(c,)]) /
        sqrt(t['var'][(c,)] + 1e-5) * t['gamma'][(c,)] + t['beta'][(c,)])),
    ('layer_norm', 'layer_norm_small', 'Y', lambda t: layer_norm(t['X'], t['gamma'], t['beta'])),
    ('broadcast_add', 'broadcast_add_both_small', 'Y', lambda t: broadcast(t['A'], t['B'], lambda a, b: a + b)),
    ('broadcast_add', 'broadcast_add_bias_small', 'Y', lambda t: broadcast(t['A'], t['B'], lambda a, b: a + b)),
    ('broadcast_multiply', 'broadcast_multiply_small', 'Y', lambda t: broadcast(t['A'], t['B'], lambda a, b: a * b)),
    ('pad', 'pad_small', 'Y', lambda t: build(
        (2, 3, 8, 10), lambda n, c, y, x: t['X'][n, c, y - 1, x - 3] if 1 <= y < 6 and 3 <= x < 10 else 2.0)),
    ('transpose', 'transpose_small', 'Y', lambda t: build((37, 19), lambda j, i: t['X'][i, j])),
    ('transpose', 'nchw_to_nhwc_small', 'Y', lambda t: build((2, 3, 21, 19), lambda n, h, w, c: t['X'][n, c, h, w])),
    ('transpose', 'nhwc_to_nchw_small', 'Y', lambda t: build((2, 19, 3, 21), lambda n, c, h, w: t['X'][n, h, w, c])),
]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    texc = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, TEXC_STDLIB=os.path.join(root, 'stdlib'))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for test, op, out, reference in CASES:
            path = os.path.join(root, 'tests', 'stdlib', test + '.tex')
            io_dir = os.path.join(tmp, op)
            run = subprocess.run([texc, 'run', path, '--target', 'interp', '--op', op, '--save-io', io_dir],
                                 capture_output=True, text=True, env=env)
            if run.returncode != 0:
                print('FAIL %s:%s: texc exited %d\n%s%s' % (test, op, run.returncode, run.stdout, run.stderr))
                failed += 1
                continue
            prefix = op + '.'
            tensors = {f[len(prefix):-4]: load_npy(os.path.join(io_dir, f))
                       for f in os.listdir(io_dir) if f.startswith(prefix) and f.endswith('.npy')}
            got = tensors[out]
            want = reference(tensors)
            # NaN where the reference has NaN (and only there); elsewhere relative to max |ref|.
            nan_mismatch = any(math.isnan(a) != math.isnan(b) for a, b in zip(got.data, want.data))
            pairs = [(a, b) for a, b in zip(got.data, want.data) if not math.isnan(b)]
            scale = max([abs(b) for _, b in pairs] + [1e-30])
            err = max([abs(a - b) for a, b in pairs] + [0.0]) / scale
            if got.shape != want.shape or nan_mismatch or err > 1e-4:
                print('FAIL %s:%s: shape %s (want %s), max error %.3g of max |ref| %.3g%s'
                      % (test, op, got.shape, want.shape, err, scale, ', NaN elsewhere' if nan_mismatch else ''))
                failed += 1
            else:
                print('ok   %-22s %-32s max error %.2e' % (test, op, err))
    print('%d matched, %d failed' % (len(CASES) - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
