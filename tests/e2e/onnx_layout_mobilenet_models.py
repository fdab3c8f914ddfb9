"""Builds the model of onnx_layout_mobilenet_test.sh with onnx.helper (no downloads) and its expected
outputs with NumPy written from the ONNX operator specs.

usage: onnx_layout_mobilenet_models.py OUTDIR
writes OUTDIR/mobilenet_mini.onnx, a MobileNetV2 in miniature whose convolutions the layout planning
keeps blocked (docs/onnx.md "Layouts"): a 3x3 stride-2 stem (3 -> 12 channels) + Clip(0, 6); an
inverted-residual block without expansion (depthwise 3x3 on the 12 channels, Clip, 1x1 projection
to 8 channels); one with expansion and stride 2 (1x1 8 -> 48, Clip, depthwise 3x3 stride
2, Clip, 1x1 to 24 channels); one with a residual Add (1x1 24 -> 96, Clip, depthwise 3x3, Clip,
1x1 to 24, Add), whose result is also the graph output `feat`; a 1x1 head to 64 channels, Clip,
GlobalAveragePool, Flatten, Gemm to 10 classes (`y`). Every weight and bias is an initializer.
Also mobilenet_mini.x.npy (its input), mobilenet_mini.y.npy and mobilenet_mini.feat.npy (the
expected outputs).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "onnx_import"))
from numpy_conv import conv  # noqa: E402

out = sys.argv[1]
rng = np.random.default_rng(5)


def f32(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


clip6 = lambda t: np.clip(t, 0.0, 6.0)  # noqa: E731
x = f32(1, 3, 16, 16)
W = {}


def cw(name, m, c, k, scale):
    W[name + ".w"] = f32(m, c, k, k, lo=-scale, hi=scale)
    W[name + ".b"] = f32(m, lo=-0.1, hi=0.1)


cw("stem", 12, 3, 3, 0.5)
cw("b1dw", 12, 1, 3, 0.5)
cw("b1pj", 8, 12, 1, 0.4)
cw("b2ex", 48, 8, 1, 0.5)
cw("b2dw", 48, 1, 3, 0.5)
cw("b2pj", 24, 48, 1, 0.2)
cw("b3ex", 96, 24, 1, 0.3)
cw("b3dw", 96, 1, 3, 0.5)
cw("b3pj", 24, 96, 1, 0.15)
cw("head", 64, 24, 1, 0.3)
W["fc.w"] = f32(10, 64); W["fc.b"] = f32(10)
inits = [numpy_helper.from_array(a, n) for n, a in W.items()]
inits += [numpy_helper.from_array(np.array(0.0, np.float32), "lo"), numpy_helper.from_array(np.array(6.0, np.float32), "hi")]
nodes = []


def node_conv(name, x, y, stride=1, pad=0, group=1):
    nodes.append(helper.make_node("Conv", [x, name + ".w", name + ".b"], [y], name=name, strides=[stride, stride],
                                  pads=[pad] * 4, group=group))


def node_clip(x, y):
    nodes.append(helper.make_node("Clip", [x, "lo", "hi"], [y], name=y))


node_conv("stem", "x", "s", 2, 1)
node_clip("s", "s6")
node_conv("b1dw", "s6", "b1d", 1, 1, 12)
node_clip("b1d", "b1d6")
node_conv("b1pj", "b1d6", "b1")
node_conv("b2ex", "b1", "b2e")
node_clip("b2e", "b2e6")
node_conv("b2dw", "b2e6", "b2d", 2, 1, 48)
node_clip("b2d", "b2d6")
node_conv("b2pj", "b2d6", "b2")
node_conv("b3ex", "b2", "b3e")
node_clip("b3e", "b3e6")
node_conv("b3dw", "b3e6", "b3d", 1, 1, 96)
node_clip("b3d", "b3d6")
node_conv("b3pj", "b3d6", "b3p")
nodes.append(helper.make_node("Add", ["b2", "b3p"], ["feat"], name="b3add"))
node_conv("head", "feat", "h")
node_clip("h", "h6")
nodes.append(helper.make_node("GlobalAveragePool", ["h6"], ["g"], name="gap"))
nodes.append(helper.make_node("Flatten", ["g"], ["flat"], name="flatten"))
nodes.append(helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["y"], name="fc", transB=1))
graph = helper.make_graph(nodes, "mobilenet_mini", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10]),
                           helper.make_tensor_value_info("feat", TensorProto.FLOAT, [1, 24, 4, 4])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "mobilenet_mini.onnx"))


def c(name, t, s=1, p=0, g=1):
    return conv(t, W[name + ".w"], W[name + ".b"], s, p, g)



b1 = c("b1pj", clip6(c("b1dw", clip6(c("stem", x, 2, 1)), 1, 1, 12)))
b2 = c("b2pj", clip6(c("b2dw", clip6(c("b2ex", b1)), 2, 1, 48)))
feat = b2 + c("b3pj", clip6(c("b3dw", clip6(c("b3ex", b2)), 1, 1, 96)))
y = clip6(c("head", feat)).mean(axis=(2, 3)) @ W["fc.w"].T.astype(np.float64) + W["fc.b"]
np.save(os.path.join(out, "mobilenet_mini.x.npy"), x)
np.save(os.path.join(out, "mobilenet_mini.y.npy"), y.astype(np.float32))
np.save(os.path.join(out, "mobilenet_mini.feat.npy"), feat.astype(np.float32))
