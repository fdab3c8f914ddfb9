"""Builds the models of onnx_import_test.sh with onnx.helper (no downloads) and their expected outputs
with NumPy written from the ONNX operator specs.

usage: make_models.py OUTDIR
writes OUTDIR/small_cnn.onnx (Conv + BatchNormalization + Relu + MaxPool + depthwise Conv +
GlobalAveragePool + Flatten + Gemm + Softmax, all weights as initializers), small_cnn.x.npy (its
input) and small_cnn.y.npy (the expected output); dynamic_cnn.onnx, the same with a symbolic
batch 'batch', with dynamic_cnn.x.npy and .y.npy at batch 4; dynamic_batch.onnx (a Relu on
[batch, 4]); and the models the importer must refuse: unsupported_op.onnx (TopK),
dynamic_inner.onnx (a symbolic dimension not first), dynamic_mean.onnx (a mean over the batch),
storage_order.onnx (MaxPool storage_order = 1), old_opset.onnx (opset 6), inf_alpha.onnx,
bad_initializer.onnx.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(7)


def f32(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def conv(x, w, b, pad, group):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    mg = m // group
    for f in range(m):
        g = f // mg
        for ry in range(kh):
            for rx in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, ry:ry + oh, rx:rx + ow]
                y[:, f] += np.einsum("nchw,c->nhw", patch, w[f, :, ry, rx])
    return y + b[None, :, None, None]


x = f32(1, 3, 8, 8)
w1, b1 = f32(8, 3, 3, 3), f32(8)
scale, bias, mean, var = f32(8), f32(8), f32(8), f32(8, lo=0.5, hi=2.0)
w2, b2 = f32(8, 1, 3, 3), f32(8)
wg, bg = f32(10, 8), f32(10)
inits = [numpy_helper.from_array(a, name) for a, name in
         [(w1, "conv1.weight"), (b1, "conv1.bias"), (scale, "bn.scale"), (bias, "bn.bias"), (mean, "bn.mean"),
          (var, "bn.var"), (w2, "dw.weight"), (b2, "dw.bias"), (wg, "fc.weight"), (bg, "fc.bias")]]
nodes = [
    helper.make_node("Conv", ["x", "conv1.weight", "conv1.bias"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["b1"], name="bn",
                     epsilon=1e-3),
    helper.make_node("Relu", ["b1"], ["r1"], name="relu"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "dw.weight", "dw.bias"], ["c2"], name="dw", pads=[1, 1, 1, 1], group=8),
    helper.make_node("GlobalAveragePool", ["c2"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=1),
]
# small_cnn with a fixed batch of 1, and dynamic_cnn, the same graph with a symbolic batch 'batch'
for name, batch in [("small_cnn", 1), ("dynamic_cnn", "batch")]:
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def small_cnn(x):
    n = x.shape[0]
    t = conv(x.astype(np.float64), w1, b1, 1, 1)
    t = (t - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + np.float32(1e-3)) * \
        scale[None, :, None, None] + bias[None, :, None, None]
    t = np.maximum(t, 0)
    t = t.reshape(n, 8, 4, 2, 4, 2).max(axis=(3, 5))
    t = conv(t, w2, b2, 1, 8)
    t = t.mean(axis=(2, 3))
    t = t @ wg.T + bg
    t = np.exp(t - t.max(axis=1, keepdims=True))
    return (t / t.sum(axis=1, keepdims=True)).astype(np.float32)


np.save(os.path.join(out, "small_cnn.x.npy"), x)
np.save(os.path.join(out, "small_cnn.y.npy"), small_cnn(x))
x4 = f32(4, 3, 8, 8)  # dynamic_cnn at batch 4
np.save(os.path.join(out, "dynamic_cnn.x.npy"), x4)
np.save(os.path.join(out, "dynamic_cnn.y.npy"), small_cnn(x4))


def single(name, node, inputs, outputs, opset=13):
    g = helper.make_graph([node], name, inputs, outputs)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), os.path.join(out, name + ".onnx"))


v = helper.make_tensor_value_info
single("unsupported_op", helper.make_node("TopK", ["x", "k"], ["v", "i"], name="my_topk"),
       [v("x", TensorProto.FLOAT, [3, 4]), v("k", TensorProto.INT64, [1])],
       [v("v", TensorProto.FLOAT, [3, 2]), v("i", TensorProto.INT64, [3, 2])])
single("dynamic_batch", helper.make_node("Relu", ["x"], ["y"], name="act"),
       [v("x", TensorProto.FLOAT, ["batch", 4])], [v("y", TensorProto.FLOAT, ["batch", 4])])
# symbolic dimensions texc refuses: one not first; a batch that a mean divides by
single("dynamic_inner", helper.make_node("Relu", ["x"], ["y"], name="act"),
       [v("x", TensorProto.FLOAT, [2, "features"])], [v("y", TensorProto.FLOAT, [2, "features"])])
single("dynamic_mean", helper.make_node("ReduceMean", ["x"], ["y"], name="mean", axes=[0], keepdims=1),
       [v("x", TensorProto.FLOAT, ["batch", 4])], [v("y", TensorProto.FLOAT, [1, 4])])
single("storage_order", helper.make_node("MaxPool", ["x"], ["y"], name="pool3", kernel_shape=[3, 3],
                                         strides=[2, 2], storage_order=1),
       [v("x", TensorProto.FLOAT, [1, 1, 8, 8])], [v("y", TensorProto.FLOAT, [1, 1, 3, 3])])
single("old_opset", helper.make_node("Relu", ["x"], ["y"], name="act"),
       [v("x", TensorProto.FLOAT, [2, 4])], [v("y", TensorProto.FLOAT, [2, 4])], opset=6)
single("inf_alpha", helper.make_node("LeakyRelu", ["x"], ["y"], name="lrelu", alpha=float("inf")),
       [v("x", TensorProto.FLOAT, [2, 4])], [v("y", TensorProto.FLOAT, [2, 4])])
# an initializer whose data do not fill its (huge) shape: refused before anything is allocated
big = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1000000000, 1000], raw_data=b"\0\0\0\0")
g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "bad_initializer",
                      [v("x", TensorProto.FLOAT, [1000000000, 1000])], [v("y", TensorProto.FLOAT, [1000000000, 1000])], [big])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(out, "bad_initializer.onnx"))
