"""Builds the model of onnx_layout_test.sh with onnx.helper (no downloads) and its expected outputs
with NumPy written from the ONNX operator specs.

usage: make_layout_models.py OUTDIR
writes OUTDIR/resnet_mini.onnx, a ResNet in miniature whose convolutions the layout planning keeps
in NCHW16c (docs/onnx.md "Layouts"): a 3x3 stem (3 -> 16 channels) + Relu + MaxPool 3x3 stride 2;
a basic block (two 3x3 convs, the first followed by a BatchNormalization of const parameters (folded),
residual Add of the pool's output, Relu), whose result is also the
graph output `feat`; a downsampling block (3x3 stride 2 to 32 channels, 3x3, a 1x1 stride 2
shortcut conv, Add, a BatchNormalization that has no Conv to fold into, Relu); Clip(0, 6); GlobalAveragePool; Flatten; Gemm to 10 classes (`y`).
Every weight and bias is an initializer. Also resnet_mini.x.npy (its input), resnet_mini.y.npy and
resnet_mini.feat.npy (the expected outputs).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_conv import conv  # noqa: E402

out = sys.argv[1]
rng = np.random.default_rng(11)


def f32(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def max_pool(x, k, stride, pad):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=-np.inf)
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    y = np.full((n, c, oh, ow), -np.inf)
    for ry in range(k):
        for rx in range(k):
            y = np.maximum(y, xp[:, :, ry:ry + stride * (oh - 1) + 1:stride, rx:rx + stride * (ow - 1) + 1:stride])
    return y


relu = lambda t: np.maximum(t, 0.0)  # noqa: E731
x = f32(1, 3, 16, 16)
weights = {
    "stem.w": f32(16, 3, 3, 3, lo=-0.5, hi=0.5), "stem.b": f32(16, lo=-0.1, hi=0.1),
    "b1c1.w": f32(16, 16, 3, 3, lo=-0.2, hi=0.2), "b1c1.b": f32(16, lo=-0.1, hi=0.1),
    "b1c2.w": f32(16, 16, 3, 3, lo=-0.2, hi=0.2), "b1c2.b": f32(16, lo=-0.1, hi=0.1),
    "b2c1.w": f32(32, 16, 3, 3, lo=-0.2, hi=0.2), "b2c1.b": f32(32, lo=-0.1, hi=0.1),
    "b2c2.w": f32(32, 32, 3, 3, lo=-0.15, hi=0.15), "b2c2.b": f32(32, lo=-0.1, hi=0.1),
    "b2ds.w": f32(32, 16, 1, 1, lo=-0.5, hi=0.5), "b2ds.b": f32(32, lo=-0.1, hi=0.1),
    "fc.w": f32(10, 32), "fc.b": f32(10),
    "bn.scale": f32(16, lo=0.5, hi=1.5), "bn.bias": f32(16, lo=-0.2, hi=0.2), "bn.mean": f32(16, lo=-0.2, hi=0.2),
    "bn.var": f32(16, lo=0.5, hi=2.0),
    "bn2.scale": f32(32, lo=0.5, hi=1.5), "bn2.bias": f32(32, lo=-0.2, hi=0.2), "bn2.mean": f32(32, lo=-0.2, hi=0.2),
    "bn2.var": f32(32, lo=0.5, hi=2.0),
}
six = np.array(6.0, np.float32)
zero = np.array(0.0, np.float32)
inits = [numpy_helper.from_array(a, name) for name, a in weights.items()]
inits += [numpy_helper.from_array(zero, "clip.lo"), numpy_helper.from_array(six, "clip.hi")]
W = weights
nodes = [
    helper.make_node("Conv", ["x", "stem.w", "stem.b"], ["s"], name="stem", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["s"], ["sr"], name="stem_relu"),
    helper.make_node("MaxPool", ["sr"], ["p"], name="pool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    helper.make_node("Conv", ["p", "b1c1.w", "b1c1.b"], ["b1c1"], name="b1c1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["b1c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["b1bn"], name="b1bn",
                     epsilon=1e-3),
    helper.make_node("Relu", ["b1bn"], ["b1r1"], name="b1r1"),
    helper.make_node("Conv", ["b1r1", "b1c2.w", "b1c2.b"], ["b1c2"], name="b1c2", pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["b1c2", "p"], ["b1s"], name="b1add"),
    helper.make_node("Relu", ["b1s"], ["feat"], name="b1r2"),
    helper.make_node("Conv", ["feat", "b2c1.w", "b2c1.b"], ["b2c1"], name="b2c1", pads=[1, 1, 1, 1], strides=[2, 2]),
    helper.make_node("Relu", ["b2c1"], ["b2r1"], name="b2r1"),
    helper.make_node("Conv", ["b2r1", "b2c2.w", "b2c2.b"], ["b2c2"], name="b2c2", pads=[1, 1, 1, 1]),
    helper.make_node("Conv", ["feat", "b2ds.w", "b2ds.b"], ["b2ds"], name="b2ds", strides=[2, 2]),
    helper.make_node("Add", ["b2ds", "b2c2"], ["b2s"], name="b2add"),
    # after an Add: no Conv to fold it into, so a multiply-add on the blocks
    helper.make_node("BatchNormalization", ["b2s", "bn2.scale", "bn2.bias", "bn2.mean", "bn2.var"], ["b2bn"], name="b2bn",
                     epsilon=1e-5),
    helper.make_node("Relu", ["b2bn"], ["b2r2"], name="b2r2"),
    helper.make_node("Clip", ["b2r2", "clip.lo", "clip.hi"], ["clipped"], name="clip"),
    helper.make_node("GlobalAveragePool", ["clipped"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["flat"], name="flatten"),
    helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["y"], name="fc", transB=1),
]
graph = helper.make_graph(nodes, "resnet_mini", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10]),
                           helper.make_tensor_value_info("feat", TensorProto.FLOAT, [1, 16, 8, 8])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "resnet_mini.onnx"))

p = max_pool(relu(conv(x, W["stem.w"], W["stem.b"], 1, 1)), 3, 2, 1)
def batch_norm(t, k, eps):
    return ((t - W[k + ".mean"][None, :, None, None]) / np.sqrt(W[k + ".var"][None, :, None, None].astype(np.float64) + eps)
            * W[k + ".scale"][None, :, None, None] + W[k + ".bias"][None, :, None, None])


bn = lambda t: batch_norm(t, "bn", 1e-3)  # noqa: E731
feat = relu(conv(relu(bn(conv(p, W["b1c1.w"], W["b1c1.b"], 1, 1))), W["b1c2.w"], W["b1c2.b"], 1, 1) + p)
b2 = conv(relu(conv(feat, W["b2c1.w"], W["b2c1.b"], 2, 1)), W["b2c2.w"], W["b2c2.b"], 1, 1)
r2 = np.clip(relu(batch_norm(b2 + conv(feat, W["b2ds.w"], W["b2ds.b"], 2, 0), "bn2", 1e-5)), 0.0, 6.0)
y = r2.mean(axis=(2, 3)) @ W["fc.w"].T.astype(np.float64) + W["fc.b"]
np.save(os.path.join(out, "resnet_mini.x.npy"), x)
np.save(os.path.join(out, "resnet_mini.y.npy"), y.astype(np.float32))
np.save(os.path.join(out, "resnet_mini.feat.npy"), feat.astype(np.float32))
