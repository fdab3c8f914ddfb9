#!/usr/bin/env bash
# Layout planning of imported models (docs/onnx.md "Layouts", docs/graph.md "Layout planning") on
# resnet_mini, built by onnx_import/make_layout_models.py (a stem, a max pool, a basic block whose
# result is also a graph output, a downsampling block with a 1x1 shortcut, Clip, global average
# pool, Gemm):
#  - `texc import` writes NCHW by default (conv2d calls, no layout transform); with --layout nchwc
#    the six convolutions are conv2d_nchwc calls on blocked tensors, and the only layout transforms
#    are one nchw_to_nchwc (the input) and two nchwc_to_nchw (the `feat` output, and before the
#    Flatten); the first batch norm is folded into its conv's weights and bias; the ReLUs, the
#    residual adds, the Clip and the second batch norm (after an Add: a multiply-add by a scale and
#    shift computed once from its const parameters, by the prepare function, and fused into the
#    convolution's kernel) are stages on NCHW16c, the pools
#    max_pool2d_nchwc and global_avg_pool2d_nchwc; each weight blocked once (the prepare function);
#  - that .tex run on x86 (every kernel checked against the reference interpreter) gives both
#    outputs NumPy computes from the ONNX specs (rtol 1e-4), and so does the model run in memory on
#    x86 (blocked by default there), with --layout nchw, and on interp and arm (qemu; skipped
#    without it), each PASS with every kernel checked on its own inputs;
#  - `--emit graph`: on x86 the 6 convolution kernels are anchored by conv2d_nchwc (9 kernels in
#    all), with --layout nchw by conv2d; on cuda (NCHW by default there) by conv2d;
#  - --layout with another value: exit 1.
# usage: onnx_layout_test.sh TEXC REPO_ROOT PYTHON (a python3 that imports onnx and numpy)
set -u
root=$(realpath "$2")
# shellcheck source=onnx_layout_checks.sh
. "$root/tests/e2e/onnx_layout_checks.sh"
layout_test_setup "$1" "$3" "$root/tests/e2e/onnx_import/make_layout_models.py" resnet_mini

expect 0 'wrote plain.tex' -- import resnet_mini.onnx -o plain.tex
count 'nchwc' plain.tex 0
count '= conv2d\(' plain.tex 6

expect 0 'wrote blocked.tex .* 2 outputs' -- import resnet_mini.onnx -o blocked.tex --layout nchwc
count '= conv2d_nchwc\(' blocked.tex 6
count '= conv2d\(' blocked.tex 0
count '= oihw_to_oihwio\(' blocked.tex 6
count '= nchw_to_nchwc\(x, block = 3\)' blocked.tex 1
count '= nchw_to_nchwc\(' blocked.tex 1
count '= nchwc_to_nchw\(' blocked.tex 2
count '^    feat = nchwc_to_nchw\(feat_nchw16c\)' blocked.tex 1
count '= max_pool2d_nchwc\(' blocked.tex 1
count '= global_avg_pool2d_nchwc\(' blocked.tex 1
count '^    b1s\[i0: 1, i1: 1, i2: 8, i3: 8, i4: 16\] = b1c2\[i0, i1, i2, i3, i4\] \+ p\[i0, i1, i2, i3, i4\]$' blocked.tex 1
count '^    clipped\[i0: 1, i1: 2, i2: 4, i3: 4, i4: 16\] = min\(max\(' blocked.tex 1
count '\+ b2ds_b\[i1 \* 16 \+ i4\]$' blocked.tex 1
# The batch norm after b1c1 (const parameters, b1c1's only reader) is folded into b1c1's weights
# and bias (computed in the prepare function), before they are blocked.
count '^    b1c1_bn_scale\[i0: 16\] = bn_scale\[i0\] / sqrt\(bn_var\[i0\] \+ 0.00100000005\)$' blocked.tex 1
count '^    b1c1_w_bn\[i0: 16, i1: 16, i2: 3, i3: 3\] = b1c1_w\[i0, i1, i2, i3\] \* b1c1_bn_scale\[i0\]$' blocked.tex 1
count '^    b1c1_bn_bias\[i0: 16\] = \(b1c1_b\[i0\] - bn_mean\[i0\]\) \* b1c1_bn_scale\[i0\] \+ bn_bias\[i0\]$' blocked.tex 1
count '^    b1c1_w_bn_blocked = oihw_to_oihwio\(b1c1_w_bn, in_block = 16, out_block = 16\)$' blocked.tex 1
count "^    # 'b1bn': BatchNormalization \(folded into the weights and bias of the Conv before it\)$" blocked.tex 1
# The batch norm after the second block's Add has no Conv to fold into: a multiply-add on the
# blocks, its scale and shift computed in the prepare function, joining the shortcut conv's kernel.
count '^    b2bn_scale\[i0: 32\] = bn2_scale\[i0\] / sqrt\(bn2_var\[i0\] \+ 9.99999975e-06\)$' blocked.tex 1
count '^    b2bn\[i0: 1, i1: 2, i2: 4, i3: 4, i4: 16\] = b2s\[i0, i1, i2, i3, i4\] \* b2bn_scale\[i1 \* 16 \+ i4\] \+ b2bn_shift\[i1 \* 16 \+ i4\]$' blocked.tex 1

run_everywhere resnet_mini 9

"$texc" resnet_mini.onnx --target x86 --emit graph -o - >graph_x86.txt 2>&1
count '^op resnet_mini: 9 kernels' graph_x86.txt 1
count '^  kernel .* \(conv2d_nchwc\)' graph_x86.txt 6
count 'prepare function .* stages stem_w_blocked, b1c1_bn_scale, b1c1_w_bn, b1c1_bn_bias, b1c1_w_bn_blocked, b1c2_w_blocked, b2c1_w_blocked, b2c2_w_blocked, b2ds_w_blocked, b2bn_scale, b2bn_shift$' graph_x86.txt 1
count '^    stages: b2ds_conv_Xp, b2ds_conv, b2ds, b2s, b2bn, b2r2, clipped$' graph_x86.txt 1
count '^    stages: b1c1_conv_Xp, b1c1_conv, b1c1, b1r1$' graph_x86.txt 1
"$texc" resnet_mini.onnx --target x86 --layout nchw --emit graph -o - >graph_nchw.txt 2>&1
count '^  kernel .* \(conv2d\)' graph_nchw.txt 6
count 'nchwc' graph_nchw.txt 0
"$texc" resnet_mini.onnx --target cuda --emit graph -o - >graph_cuda.txt 2>&1
count '^  kernel .* \(conv2d\)' graph_cuda.txt 6
count 'nchwc' graph_cuda.txt 0

expect 1 '--layout takes nchw or nchwc' -- run resnet_mini.onnx --layout nhwc
expect 1 '--layout takes nchw or nchwc' -- import resnet_mini.onnx -o z.tex --layout NCHWc

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
