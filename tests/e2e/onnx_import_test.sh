#!/usr/bin/env bash
# texc import (docs/onnx.md) on models built by onnx_import/make_models.py:
#  - small_cnn (conv, batch norm, relu, max pool, depthwise conv, global average pool, flatten,
#    gemm, softmax; every weight an initializer): the .tex has the weights as const inputs, the
#    weights are written as OP.NAME.npy under MODEL.weights/, and `texc run --inputs` with them
#    and the input gives the output NumPy computes from the ONNX specs (rtol 1e-4);
#  - the models the importer refuses: exit 1, the message naming the node, its op type and the
#    opset (or the dimension, or the opset), and no .tex written.
# usage: onnx_import_test.sh TEXC REPO_ROOT PYTHON (a python3 that imports onnx and numpy)
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
python=$3
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" "$root/tests/e2e/onnx_import/make_models.py" "$work" || { echo "FAIL: make_models.py"; exit 1; }
cd "$work" || exit 2

expect 0 'wrote small_cnn.tex .* 10 weights under small_cnn.weights/' -- import small_cnn.onnx -o small_cnn.tex
grep -q 'conv1_weight: const f32\[8, 3, 3, 3\]' small_cnn.tex || { echo "FAIL: no const conv1_weight in small_cnn.tex"; cat small_cnn.tex; failures=$((failures + 1)); }
grep -q '= conv2d(x, conv1_weight, stride = 1, pad = 1)' small_cnn.tex || { echo "FAIL: conv1 is not a conv2d call"; failures=$((failures + 1)); }
grep -q '= depthwise_conv2d(' small_cnn.tex || { echo "FAIL: dw is not a depthwise_conv2d call"; failures=$((failures + 1)); }
[ -f small_cnn.weights/small_cnn.fc_weight.npy ] || { echo "FAIL: no small_cnn.weights/small_cnn.fc_weight.npy"; failures=$((failures + 1)); }
cp small_cnn.x.npy small_cnn.weights/small_cnn.x.npy
expect 0 'small_cnn +x86 +PASS' -- run small_cnn.tex --target x86 --inputs small_cnn.weights --save-io out --repeat 1
"$python" - <<'PY' || failures=$((failures + 1))
import numpy as np, sys
got, want = np.load("out/small_cnn.y.npy"), np.load("small_cnn.y.npy")
if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-6):
    print("FAIL: small_cnn output differs from NumPy's:", got, want); sys.exit(1)
print("ok: small_cnn's output matches NumPy's (max abs error %.2g)" % np.abs(got - want).max())
PY
# --weights-dir, and --op naming the op
expect 0 'wrote net.tex .* under w/' -- import small_cnn.onnx -o net.tex --weights-dir w --op net
[ -f w/net.conv1_weight.npy ] || { echo "FAIL: no w/net.conv1_weight.npy"; failures=$((failures + 1)); }

expect 1 "node 'my_topk' \(TopK, opset 13\): this op type is not supported" -- import unsupported_op.onnx -o u.tex
expect 1 "graph input 'x' has a dimension 'batch' that is not a number" -- import dynamic_batch.onnx -o d.tex
expect 1 "node 'pool3' \(MaxPool, opset 13\): ceil_mode = 1 is not supported" -- import ceil_mode.onnx -o c.tex
expect 1 "opset is 6; texc imports opsets 7 to 17" -- import old_opset.onnx -o o.tex
expect 1 "node 'lrelu' \(LeakyRelu, opset 13\): a value that is not a finite number" -- import inf_alpha.onnx -o i.tex
expect 1 "initializer: tensor 'w' of shape \[1000000000, 1000\] holds 1 values, not 1000000000000" -- import bad_initializer.onnx -o b.tex
expect 1 "is not an ONNX model" -- import small_cnn.x.npy -o n.tex
expect 1 "-o OUT.tex is required" -- import small_cnn.onnx
for f in u.tex d.tex c.tex o.tex n.tex i.tex b.tex; do
  [ ! -e "$f" ] || { echo "FAIL: $f written by a failed import"; failures=$((failures + 1)); }
done

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all passed"
