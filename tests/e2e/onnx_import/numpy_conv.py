"""The ONNX Conv of the layout tests' expected outputs, in NumPy (float64), from the operator spec:
NCHW input, OIHW weights, a bias, one stride and one padding for both axes; groups 1 or depthwise
(groups == channels, one weight channel per output channel)."""
import numpy as np


def conv(x, w, b, stride, pad, groups=1):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    for ry in range(kh):
        for rx in range(kw):
            patch = xp[:, :, ry:ry + stride * (oh - 1) + 1:stride, rx:rx + stride * (ow - 1) + 1:stride]
            if groups == 1:
                y += np.einsum("nchw,mc->nmhw", patch, w[:, :, ry, rx])
            else:  # depthwise: output channel m reads input channel m
                y += patch * w[None, :, 0, ry, rx, None, None]
    return y + b[None, :, None, None]
