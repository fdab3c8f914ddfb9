#!/usr/bin/env bash
# texc import (docs/onnx.md) on models built by onnx_import/make_models.py:
#  - small_cnn (conv, batch norm, relu, max pool, depthwise conv, global average pool, flatten,
#    gemm, softmax; every weight an initializer): the .tex has the weights as const inputs, the
#    weights are written as the container small_cnn.weights (read back by onnx_import/
#    weights_container.py, from the documented format) and with --weights-dir as OP.NAME.npy, and
#    `texc run --weights` with them and the input gives the output NumPy computes from the ONNX
#    specs (rtol 1e-4);
#  - the container's errors: truncated, not a container, a tensor missing or of another shape
#    (exit 1, the message naming the file and the tensor), for run and compile;
#  - in memory: `texc run small_cnn.onnx` gives the same output; `texc small_cnn.onnx --target x86
#    -o cnn` writes cnn.o, cnn.h and cnn.weights, which onnx_import/weights_main.c loads through the
#    C API (runtime/texrt_weights.h), calling small_cnn_prepare and small_cnn: NumPy's output again;
#  - the models the importer refuses: exit 1, the message naming the node, its op type and the
#    opset (or the dimension, or the opset), and no .tex written.
# usage: onnx_import_test.sh TEXC REPO_ROOT PYTHON LIBTEXRT (a python3 that imports onnx and numpy)
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
python=$3
libtexrt=$(realpath "$4")
container="$python $root/tests/e2e/onnx_import/weights_container.py"
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" "$root/tests/e2e/onnx_import/make_models.py" "$work" || { echo "FAIL: make_models.py"; exit 1; }
cd "$work" || exit 2

expect 0 'wrote small_cnn.tex .* 10 weights in small_cnn.weights$' -- import small_cnn.onnx -o small_cnn.tex
grep -q 'conv1_weight: const f32\[8, 3, 3, 3\]' small_cnn.tex || { echo "FAIL: no const conv1_weight in small_cnn.tex"; cat small_cnn.tex; failures=$((failures + 1)); }
grep -q '= conv2d(x, conv1_weight_bn, stride = 1, pad = 1)' small_cnn.tex || { echo "FAIL: conv1 is not a conv2d call on its weights with the batch norm folded in"; failures=$((failures + 1)); }
grep -q '^    conv1_weight_bn\[i0: 8, i1: 3, i2: 3, i3: 3\] = conv1_weight\[i0, i1, i2, i3\] \* c1_bn_scale\[i0\]$' small_cnn.tex &&
  ! grep -q 'batch_norm(' small_cnn.tex || { echo "FAIL: the batch norm after conv1 is not folded into its weights"; cat small_cnn.tex; failures=$((failures + 1)); }
grep -q '= depthwise_conv2d(' small_cnn.tex || { echo "FAIL: dw is not a depthwise_conv2d call"; failures=$((failures + 1)); }
mkdir in && cp small_cnn.x.npy in/small_cnn.x.npy

# compares out/small_cnn.y.npy (or $1) with NumPy's output
check_output() {
  "$python" - "${1:-out/small_cnn.y.npy}" <<'PY' || failures=$((failures + 1))
import numpy as np, sys
got, want = np.load(sys.argv[1]) if sys.argv[1].endswith(".npy") else np.fromfile(sys.argv[1], np.float32), np.load("small_cnn.y.npy")
got = got.reshape(want.shape) if got.size == want.size else got
if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-6):
    print("FAIL: small_cnn output %s differs from NumPy's:" % sys.argv[1], got, want); sys.exit(1)
print("ok: small_cnn's output %s matches NumPy's (max abs error %.2g)" % (sys.argv[1], np.abs(got - want).max()))
PY
}
expect 0 'small_cnn +x86 +PASS' -- run small_cnn.tex --target x86 --weights small_cnn.weights --inputs in --save-io out --repeat 1
check_output
# --weights-dir (.npy files, for --inputs), --weights naming the container, and --op naming the op
expect 0 'wrote net.tex .* in net_w.bin and under w/' -- import small_cnn.onnx -o net.tex --weights net_w.bin --weights-dir w --op net
[ -f w/net.conv1_weight.npy ] || { echo "FAIL: no w/net.conv1_weight.npy"; failures=$((failures + 1)); }
cmp -s net_w.bin small_cnn.weights || { echo "FAIL: net_w.bin differs from small_cnn.weights"; failures=$((failures + 1)); }
$container compare small_cnn.weights conv1_weight=w/net.conv1_weight.npy bn_var=w/net.bn_var.npy \
  fc_bias=w/net.fc_bias.npy || failures=$((failures + 1))

# the documented format, written independently, is byte for byte what texc writes
$container rewrite small_cnn.weights rewritten.weights
cmp -s rewritten.weights small_cnn.weights && echo "ok: weights_container.py writes small_cnn.weights byte for byte" ||
  { echo "FAIL: weights_container.py's small_cnn.weights differs from texc's"; failures=$((failures + 1)); }
# the container's errors
head -c 1000 small_cnn.weights > truncated.weights
head -c 100 small_cnn.weights > truncated_directory.weights
$container rewrite small_cnn.weights missing.weights --drop fc_bias
$container rewrite small_cnn.weights misshaped.weights --shape fc_bias=9
expect 1 "truncated.weights: is truncated: tensor 'conv1_weight' needs bytes 576 to 1440 but the file has 1000" -- \
  run small_cnn.tex --weights truncated.weights
expect 1 "truncated_directory.weights: is truncated: its directory lists 10 tensors" -- run small_cnn.tex --weights truncated_directory.weights
expect 1 "small_cnn.x.npy: not a texc weights container" -- run small_cnn.tex --weights small_cnn.x.npy
expect 1 "missing.weights: has no tensor 'fc_bias' for the const input 'fc_bias' of op 'small_cnn' \(f32\[10\]\)" -- \
  run small_cnn.tex --weights missing.weights
expect 1 "misshaped.weights: tensor 'fc_bias' is f32\[9\], but input 'fc_bias' of op 'small_cnn' is f32\[10\]" -- \
  small_cnn.tex --target x86 --weights misshaped.weights -o bad
expect 1 "--weights nothere.weights: no such file" -- run small_cnn.tex --weights nothere.weights
[ ! -e bad.o ] || { echo "FAIL: bad.o written with mis-shaped weights"; failures=$((failures + 1)); }
expect 0 '' -- small_cnn.tex --target x86 --weights small_cnn.weights -o good

# in memory: texc run MODEL.onnx, texc MODEL.onnx -o STEM (and the C API on its STEM.weights)
expect 0 'small_cnn +x86 +PASS' -- run small_cnn.onnx --target x86 --inputs in --save-io out_onnx --repeat 1
check_output out_onnx/small_cnn.y.npy
[ ! -e small_cnn.onnx.tex ] && [ "$(ls ./*.tex | wc -l)" -eq 2 ] || { echo "FAIL: texc run MODEL.onnx wrote a .tex"; failures=$((failures + 1)); }
expect 0 '' -- small_cnn.onnx --target x86 -o cnn
for f in cnn.o cnn.h cnn.weights; do [ -f $f ] || { echo "FAIL: no $f"; failures=$((failures + 1)); }; done
cmp -s cnn.weights small_cnn.weights || { echo "FAIL: cnn.weights differs from small_cnn.weights"; failures=$((failures + 1)); }
"$python" -c "import numpy as np; np.load('small_cnn.x.npy').tofile('x.bin')"
if cc -I. -I"$root" "$root/tests/e2e/onnx_import/weights_main.c" cnn.o "$libtexrt" -lstdc++ -lpthread -lm -ldl -o weights_main; then
  ./weights_main cnn.weights x.bin y.bin && check_output y.bin || failures=$((failures + 1))
  out=$(./weights_main misshaped.weights x.bin y.bin 2>&1)
  if [ $? -eq 1 ] && grep -q "tensor 'fc_bias' is f32\[9\], not the expected f32\[10\]" <<<"$out"; then echo "ok: weights_main refuses misshaped.weights"
  else echo "FAIL: weights_main misshaped.weights: $out"; failures=$((failures + 1)); fi
else
  echo "FAIL: weights_main.c does not build"; failures=$((failures + 1))
fi
expect 1 "node 'my_topk' \(TopK, opset 13\): this op type is not supported" -- run unsupported_op.onnx

# a dynamic batch: the param 'batch' (default 1), set with -D
expect 0 'wrote dyn.tex' -- import dynamic_cnn.onnx -o dyn.tex
grep -q '^param batch = 1$' dyn.tex && grep -q 'x: f32\[batch, 3, 8, 8\]' dyn.tex ||
  { echo "FAIL: dyn.tex has no param batch"; cat dyn.tex; failures=$((failures + 1)); }
mkdir in4 && cp dynamic_cnn.x.npy in4/dynamic_cnn.x.npy
# (a network of kernels since issue 30's graph: the batch shows in the saved output's shape)
expect 0 'dynamic_cnn +x86 +PASS .* points checked' -- run dynamic_cnn.onnx -D batch=4 --inputs in4 --save-io out4 --repeat 1
"$python" - <<'PY' || failures=$((failures + 1))
import numpy as np, sys
got, want = np.load("out4/dynamic_cnn.y.npy"), np.load("dynamic_cnn.y.npy")
if got.shape != (4, 10) or not np.allclose(got, want, rtol=1e-4, atol=1e-6):
    print("FAIL: dynamic_cnn at batch 4 differs from NumPy's:", got, want); sys.exit(1)
print("ok: dynamic_cnn at batch 4 matches NumPy's (max abs error %.2g)" % np.abs(got - want).max())
PY
expect 0 'dynamic_cnn +x86 +PASS .* points checked' -- run dyn.tex --weights dyn.weights --repeat 1 --save-io out1
"$python" -c 'import numpy as np, sys; s = np.load("out1/dynamic_cnn.y.npy").shape; print("ok: default batch, y", s) if s == (1, 10) else sys.exit("FAIL: dyn.tex at its default batch wrote y of shape %s" % (s,))' ||
  failures=$((failures + 1))
expect 0 '' -- dyn.tex --target x86 -D batch=3 --weights dyn.weights -o dyn3
grep -q 'define DYNAMIC_CNN_X_DIM0 3$' dyn3.h || { echo "FAIL: dyn3.h is not for batch 3"; failures=$((failures + 1)); }
expect 0 'wrote relu_batch.tex' -- import dynamic_batch.onnx -o relu_batch.tex

expect 1 "node 'my_topk' \(TopK, opset 13\): this op type is not supported" -- import unsupported_op.onnx -o u.tex
expect 1 "graph input 'x' has a dimension 'features' that is not a number \(only a first dimension may be symbolic" -- \
  import dynamic_inner.onnx -o d.tex
expect 1 "the dynamic first dimension 'batch' of the graph inputs enters a size texc cannot write as a param" -- \
  import dynamic_mean.onnx -o m.tex
expect 1 "node 'pool3' \(MaxPool, opset 13\): storage_order = 1 without the Indices output is not supported" -- import storage_order.onnx -o c.tex
expect 1 "opset is 6; texc imports opsets 7 to 17" -- import old_opset.onnx -o o.tex
expect 1 "node 'lrelu' \(LeakyRelu, opset 13\): a value that is not a finite number" -- import inf_alpha.onnx -o i.tex
expect 1 "initializer: tensor 'w' of shape \[1000000000, 1000\] holds 1 values, not 1000000000000" -- import bad_initializer.onnx -o b.tex
expect 1 "is not an ONNX model" -- import small_cnn.x.npy -o n.tex
expect 1 "-o OUT.tex is required" -- import small_cnn.onnx
for f in u.tex d.tex m.tex c.tex o.tex n.tex i.tex b.tex; do
  [ ! -e "$f" ] || { echo "FAIL: $f written by a failed import"; failures=$((failures + 1)); }
done

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all passed"
