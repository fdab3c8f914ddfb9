#!/usr/bin/env bash
# Layout planning of an imported MobileNetV2 in miniature (docs/onnx.md "Layouts", docs/graph.md
# "Layout planning"), built by onnx_layout_mobilenet_models.py (a stride-2 stem, three inverted-
# residual blocks: depthwise 3x3 convolutions, 1x1 expansions and projections to 8 and 24 channels,
# Clip(0, 6), a residual Add whose result is also the graph output `feat`; a 1x1 head, global average
# pool, Gemm; 12, 8 and 24 channels are no multiple of 16):
#  - `texc import` writes NCHW by default (conv2d, conv2d_1x1, depthwise_conv2d calls); with
#    --layout nchwc the seven convolutions of one group are conv2d_nchwc calls and the three depthwise
#    ones depthwise_conv2d_nchwc calls, their weights re-laid out once (the prepare function), every
#    value in NCHW16c: the 12-, 8- and 24-channel ones padded to 16 and 32 channels (zero weights
#    and bias there, selected); the only layout transforms are one nchw_to_nchwc (the input, in one
#    block of 3) and two nchwc_to_nchw (the `feat` output, its first 24 channels, and before the
#    Flatten);
#  - the model run on x86 (blocked by default there), with --layout nchw, and on interp and arm
#    (qemu; skipped without it) gives both outputs NumPy computes from the ONNX specs (rtol 1e-4),
#    each PASS with every kernel checked against the reference interpreter on its own inputs;
#  - `--emit graph` on x86: 12 kernels, 7 anchored by conv2d_nchwc and 3 by depthwise_conv2d_nchwc.
# usage: onnx_layout_mobilenet_test.sh TEXC REPO_ROOT PYTHON (a python3 that imports onnx and numpy)
set -u
root=$(realpath "$2")
# shellcheck source=onnx_layout_checks.sh
. "$root/tests/e2e/onnx_layout_checks.sh"
layout_test_setup "$1" "$3" "$root/tests/e2e/onnx_layout_mobilenet_models.py" mobilenet_mini

expect 0 'wrote plain.tex' -- import mobilenet_mini.onnx -o plain.tex
count 'nchwc' plain.tex 0
count '= depthwise_conv2d\(' plain.tex 3
count '= conv2d(_1x1)?\(' plain.tex 7

expect 0 'wrote blocked.tex .* 2 outputs' -- import mobilenet_mini.onnx -o blocked.tex --layout nchwc
count '= conv2d_nchwc\(' blocked.tex 7
count '= depthwise_conv2d_nchwc\(' blocked.tex 3
count '= (depthwise_)?conv2d(_1x1)?\(' blocked.tex 0
count '= oihw_to_oihwio\(' blocked.tex 7
count '= nchw_to_nchwc\(x, block = 3\)' blocked.tex 1
count '= nchw_to_nchwc\(' blocked.tex 1
count '= nchwc_to_nchw\(' blocked.tex 2
count '^    feat = nchwc_to_nchw\(feat_nchw16c, channels = 24\)$' blocked.tex 1
count '= global_avg_pool2d_nchwc\(' blocked.tex 1
# the depthwise weights re-laid out into blocks (a const stage), the bias added on the blocks
count '^    b2dw_w_blocked\[i0: 3, i1: 3, i2: 3, i3: 16\] = b2dw_w\[i0 \* 16 \+ i3, 0, i1, i2\]$' blocked.tex 1
count '^    b2d_conv = depthwise_conv2d_nchwc\(b2e6, b2dw_w_blocked, stride = 2, pad = 1\)$' blocked.tex 1
count '^    b2d\[i0: 1, i1: 3, i2: 4, i3: 4, i4: 16\] = b2d_conv\[i0, i1, i2, i3, i4\] \+ b2dw_b\[i1 \* 16 \+ i4\]$' blocked.tex 1
# 24 channels: padded to 2 blocks of 16, out of the projection (0.0 bias past 24), into the next
# expansion and the residual add
count '^    b2pj_w_blocked = oihw_to_oihwio\(b2pj_w, in_block = 16, out_block = 16\)$' blocked.tex 1
count '^    b2\[i0: 1, i1: 2, i2: 4, i3: 4, i4: 16\] = b2_conv\[i0, i1, i2, i3, i4\] \+ select\(i1 \* 16 \+ i4 < 24, b2pj_b\[i1 \* 16 \+ i4\], 0.0\)$' blocked.tex 1
count '^    b3ex_w_blocked = oihw_to_oihwio\(b3ex_w, in_block = 16, out_block = 16\)$' blocked.tex 1
count '^    feat_nchw16c\[i0: 1, i1: 2, i2: 4, i3: 4, i4: 16\] = b2\[i0, i1, i2, i3, i4\] \+ b3p\[i0, i1, i2, i3, i4\]$' blocked.tex 1
# 12 channels into a depthwise convolution: its weights and bias 0.0 past 12
count '^    b1dw_w_blocked\[i0: 1, i1: 3, i2: 3, i3: 16\] = select\(i0 \* 16 \+ i3 < 12, b1dw_w\[i0 \* 16 \+ i3, 0, i1, i2\], 0.0\)$' blocked.tex 1
count '^    b1d\[i0: 1, i1: 1, i2: 8, i3: 8, i4: 16\] = b1d_conv\[i0, i1, i2, i3, i4\] \+ select\(i1 \* 16 \+ i4 < 12, b1dw_b\[i1 \* 16 \+ i4\], 0.0\)$' blocked.tex 1

run_everywhere mobilenet_mini 12

"$texc" mobilenet_mini.onnx --target x86 --emit graph -o - >graph_x86.txt 2>&1
count '^op mobilenet_mini: 12 kernels' graph_x86.txt 1
count '^  kernel .* \(conv2d_nchwc\)' graph_x86.txt 7
count '^  kernel .* \(depthwise_conv2d_nchwc\)' graph_x86.txt 3
count '^    stages: b3p_conv_Xp, b3p_conv, b3p, feat_nchw16c, feat$' graph_x86.txt 1

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
