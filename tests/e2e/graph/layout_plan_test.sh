#!/usr/bin/env bash
# Layout planning of ops written by hand (frontend/LayoutPlan.h, docs/graph.md "Layout planning"):
#  - tests/e2e/graph/layout_plan.tex on x86 is planned: its three 16/32-channel convolutions are
#    conv2d_nchwc kernels (the 3-channel stem on one block of 3, `X_nchw3c`), the pools blocked,
#    the own stage and the leaky_relu call on blocks, NCHW forms only for P1 (read at another
#    channel), Y2 (an output, read at a shifted point) and S (read by the 12-channel convolution,
#    which stays conv2d on NCHW, and by the pool's flatten path), 7 kernels;
#  - with --layout nchw it is compiled as written (conv2d anchors only), and on cuda (where conv2d
#    does not compute in blocks) too;
#  - texc run --check full passes on x86, interp and arm (qemu; skipped without it): every kernel
#    against the reference of its own stages, the outputs against the op as written at every element;
#  - an op whose names the plan needs are taken, and an op with its own schedule, are compiled as
#    written;
#  - tests/e2e/graph/layout_plan_mobilenet.tex (MobileNetV2's inverted residual block, 32 -> 192
#    -> 32 channels) is planned end to end: X packed once, the 1x1 expansion, the depthwise
#    convolution (depthwise_conv2d_nchwc, its const weights re-laid out in the prepare function)
#    and the 1x1 projection on blocks, the ReLU6 stages and the residual add on blocks, NCHW only
#    for the output; --layout nchw and cuda compile it as written; --check full passes on x86,
#    interp and arm;
#  - tests/e2e/graph/layout_plan_padded.tex (MobileNetV2's 24-channel stretch: a 3x3 stem of 8 ->
#    16, 16 -> 96 -> depthwise -> 24, 24 -> 144 -> depthwise -> 24 with a residual add) is planned
#    end to end, the 24-channel tensors padded to 2 blocks (32 channels, zero lanes): every
#    convolution conv2d_nchwc or depthwise_conv2d_nchwc, the padded weights made once in the prepare
#    function, the stages on padded blocks selecting 0.0 past channel 24, no NCHW form between the
#    layers, the output's NCHW form its 24 real channels; --layout nchw and cuda compile it as
#    written; --check full passes on x86, interp and arm;
#  - a depthwise convolution with dilation 2 or a channel multiplier of 2 is not planned, nor the
#    convolutions whose chain it is; depthwise weights that are no const input are blocked in a
#    loop nest of their own in the kernel, not inlined into the taps;
#  - random networks of such layers (random_layout_plan.py, seeded), each --check full on x86.
# usage: layout_plan_test.sh TEXC REPO_ROOT
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=../expect.sh
. "$root/tests/e2e/expect.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
net="$root/tests/e2e/graph/layout_plan.tex"
have_arm=false
if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null; then have_arm=true; fi

graph=$("$texc" "$net" --target x86 --emit graph -o - 2>&1)
check_graph() {  # check_graph PATTERN WHAT: the x86 graph matches PATTERN
  if grep -qE -- "$1" <<<"$graph"; then echo "ok: $2"; else echo "FAIL: $2 (/$1/)"; failures=$((failures + 1)); fi
}
# as_written FILE ANCHOR WHAT: with --layout nchw on x86, and on cuda, FILE is compiled as written
# (no blocked op; its kernels anchored on ANCHOR, e.g. `(conv2d)`).
as_written() {
  local file=$1 anchor=$2 what=$3 args out
  for args in "--target x86 --layout nchw" "--target cuda"; do
    # shellcheck disable=SC2086
    out=$("$texc" "$file" $args --emit graph -o - 2>&1)
    if grep -q "nchwc" <<<"$out" || ! grep -qF "$anchor" <<<"$out"; then
      echo "FAIL: $what with $args is not as written:"; sed 's/^/    /' <<<"$out" | head -20; failures=$((failures + 1))
    else
      echo "ok: $args compiles $what as written"
    fi
  done
}
# passes_everywhere FILE OP KERNELS: texc run --check full passes on x86, interp and arm (qemu),
# every one of KERNELS kernels checked on its own inputs.
passes_everywhere() {
  local file=$1 op=$2 kernels=$3 target
  for target in x86 interp arm; do
    [ "$target" = arm ] && ! $have_arm && continue
    expect 0 "$op +$target +PASS .*$kernels kernels checked on their own inputs" -- run "$file" --target "$target" --check full
  done
}
check_graph 'op planned_net: 7 kernels' "7 kernels"
check_graph 'planned_net_k0: complex-out-fusible, anchor C1_nchw16c \(conv2d_nchwc\)' "the stem is conv2d_nchwc"
check_graph 'stages: X_nchw3c, C1_wb, Xp, C1_nchw16c, A1_nchw16c, R1_nchw16c$' "the stem's kernel: input in one block of 3, bias and leaky_relu on blocks"
check_graph 'anchor P1_nchw16c \(max_pool2d_nchwc\)' "the max pool on blocks"
check_graph 'stages: P1_nchw16c, P1$' "P1's NCHW form (read at another channel) in the pool's kernel"
check_graph 'stages: C2_wb, C2_nchw16c_Xp, C2_nchw16c, Y2_nchw16c, Y2$' "Y2 on blocks, then NCHW (an output)"
check_graph 'anchor C3_nchw16c \(conv2d_nchwc\)' "the third conv on blocks"
check_graph 'planned_net_k4: complex-out-fusible, anchor Yp \(conv2d\)' "the 12-channel 1x1 conv stays conv2d"
check_graph 'anchor G_nchw16c_S \(global_avg_pool2d_nchwc\)' "the global pool on blocks"
n_blocked=$(grep -c 'conv2d_nchwc)' <<<"$graph")
if [ "$n_blocked" -eq 3 ]; then echo "ok: 3 conv2d_nchwc kernels"; else echo "FAIL: $n_blocked conv2d_nchwc kernels, want 3"; failures=$((failures + 1)); fi

# As written: --layout nchw, and on cuda.
as_written "$net" "(conv2d)" "the op"
passes_everywhere "$net" planned_net 7

# MobileNetV2's inverted residual block, planned end to end in blocks.
block="$root/tests/e2e/graph/layout_plan_mobilenet.tex"
graph=$("$texc" "$block" --target x86 --emit graph -o - 2>&1)
check_graph 'op inverted_residual: 3 kernels' "the block: 3 kernels"
check_graph 'inverted_residual_prepare \(once per const inputs\): stages E_wb, D_wb, P_wb$' "the weights re-laid out once, in the prepare function"
check_graph 'anchor E_nchw16c \(conv2d_nchwc\)' "the 1x1 expansion on blocks (its input packed anyway for the residual add)"
check_graph 'stages: X_nchw16c, Xp, E_nchw16c, E6_nchw16c$' "X packed once, the expansion's ReLU6 on blocks"
check_graph 'anchor D_nchw16c \(depthwise_conv2d_nchwc\)' "the depthwise convolution on blocks"
check_graph 'stages: D_nchw16c_Xp, D_nchw16c, D6_nchw16c$' "the depthwise ReLU6 on blocks"
check_graph 'stages: P_nchw16c_Xp, P_nchw16c, Y_nchw16c, Y$' "the projection and the residual add on blocks, NCHW for the output only"
check_graph 'intermediates: 3$' "3 intermediates"
if grep -qE '(nchwc_to_nchw|nchw_to_nchwc)\(|\b(E|E6|D|D6|P) f32' <<<"$graph"; then
  echo "FAIL: an NCHW round trip between the block's layers:"; sed 's/^/    /' <<<"$graph"; failures=$((failures + 1))
else
  echo "ok: no NCHW form between the block's layers"
fi
as_written "$block" "(depthwise_conv2d)" "the block"
passes_everywhere "$block" inverted_residual 3

# Channel counts that are no multiple of 16 (24), padded to blocks of 16 with zero lanes.
padded="$root/tests/e2e/graph/layout_plan_padded.tex"
graph=$("$texc" "$padded" --target x86 --emit graph -o - 2>&1)
check_graph 'op padded_blocks: 7 kernels' "the padded stretch: 7 kernels"
check_graph 'padded_blocks_prepare \(once per const inputs\): stages S_wb, E1_wb, D1_wb, P1_wb, E2_wb, D2_wb, P2_wb$' \
  "the (padded) weights re-laid out once, in the prepare function"
check_graph 'stages: X_nchw8c, Xp, S_nchw16c, S6_nchw16c$' "the stem: X in one block of 8, ReLU6 on blocks"
check_graph 'anchor P1_nchw16c \(conv2d_nchwc\)' "the projection to 24 channels on blocks"
check_graph 'stages: P1_nchw16c_Xp, P1_nchw16c, B1_nchw16c$' "its bias on padded blocks"
check_graph 'writes: B1_nchw16c f32\[1, 2, 8, 8, 16\]$' "24 channels in 2 blocks"
check_graph 'anchor E2_nchw16c \(conv2d_nchwc\)' "the expansion from 24 channels on blocks"
check_graph 'stages: P2_nchw16c_Xp, P2_nchw16c, Y_nchw16c, Y$' "the residual add on padded blocks, NCHW for the output only"
check_graph 'writes: Y f32\[1, 24, 8, 8\]$' "the output's 24 real channels"
n_planned=$(grep -cE 'anchor [A-Za-z0-9]+_nchw16c \((conv2d_nchwc|depthwise_conv2d_nchwc)\)' <<<"$graph")
if [ "$n_planned" -eq 7 ]; then echo "ok: 7 convolutions on blocks"; else echo "FAIL: $n_planned convolutions on blocks, want 7"; failures=$((failures + 1)); fi
if grep -qE '(nchwc_to_nchw|nchw_to_nchwc)\(|\b(S|S6|E1|E16|D1|D16|P1|B1|E2|E26|D2|D26|P2) f32' <<<"$graph"; then
  echo "FAIL: an NCHW round trip between the padded layers:"; sed 's/^/    /' <<<"$graph"; failures=$((failures + 1))
else
  echo "ok: no NCHW form between the padded layers"
fi
# the bias stage on padded blocks: 0.0 in the lanes past channel 24 (its read of Bp1[24] guarded)
expect 0 'B1_nchw16c\[.*\] = select\(.*< broadcast\(24, 16\), .*Bp1\[' -- "$padded" --target x86 --emit loops -o -
as_written "$padded" "(depthwise_conv2d)" "the padded stretch"
passes_everywhere "$padded" padded_blocks 7

# Not planned: a depthwise convolution with dilation 2, or with a channel multiplier of 2 (64
# filters on 32 channels), and the convolutions on either side of it.
cat > "$work/depthwise_left.tex" <<'TEX'
import nn.conv2d
import nn.depthwise_conv2d
op depthwise_left(X: f32[1, 16, 12, 12], W1: f32[32, 16, 3, 3], Wd: f32[32, 1, 3, 3], Wm: f32[64, 1, 3, 3],
                  W2: f32[16, 32, 3, 3], W3: f32[16, 64, 3, 3]) -> Y, Z {
  compute {
    C1 = conv2d(X, W1, pad = 1)
    D = depthwise_conv2d(C1, Wd, pad = 2, dilation = 2)
    Y = conv2d(D, W2, pad = 1)
    M = depthwise_conv2d(C1, Wm, pad = 1)
    Z = conv2d(M, W3, pad = 1)
  }
}
TEX
out=$("$texc" "$work/depthwise_left.tex" --target x86 --emit graph -o - 2>&1)
if grep -q "nchwc" <<<"$out" || [ "$(grep -c '(depthwise_conv2d)' <<<"$out")" -ne 2 ]; then
  echo "FAIL: dilation 2 / channel multiplier 2 planned:"; sed 's/^/    /' <<<"$out" | head -20; failures=$((failures + 1))
else
  echo "ok: dilation 2 and channel multiplier 2 are not planned"
fi
expect 0 'depthwise_left +x86 +PASS' -- run "$work/depthwise_left.tex" --target x86 --check full

# Weights that are no const input (here an own stage of them, positional arguments with dilation
# 1): their blocks are computed on every call, in a loop nest of their own before the depthwise
# taps (depthwise_weights_nchwc's compute_root), not gathered again at every tap.
cat > "$work/depthwise_weights.tex" <<'TEX'
import nn.conv2d
import nn.depthwise_conv2d
op depthwise_weights(X: f32[1, 16, 11, 9], W1: f32[32, 16, 3, 3], Wd: f32[32, 1, 5, 5], W2: f32[16, 32, 1, 1]) -> Y {
  compute {
    C1 = conv2d(X, W1, 1, 1)
    Wd2[c, i, y, x] = Wd[c, i, y, x] * 0.5
    D = depthwise_conv2d(C1, Wd2, 2, 2, 1)
    Y = conv2d(D, W2)
  }
}
TEX
expect 0 'stages: Wd2, D_wb, D_nchw16c_Xp, D_nchw16c$' -- "$work/depthwise_weights.tex" --target x86 --emit graph -o -
expect 0 'allocate D_wb: f32\[800\] global' -- "$work/depthwise_weights.tex" --target x86 --emit loops -o -
expect 0 'depthwise_weights +x86 +PASS .*3 kernels checked on their own inputs' -- run "$work/depthwise_weights.tex" --target x86 --check full

# Left as written: a name the plan needs is taken; the op has a schedule of its own.
cat > "$work/taken.tex" <<'TEX'
import nn.conv2d
op taken(X: f32[1, 16, 8, 8], W1: f32[16, 16, 3, 3], W2: f32[16, 16, 3, 3]) -> Y {
  compute {
    C1 = conv2d(X, W1, pad = 1)
    C1_nchw16c[n, c, y, x] = C1[n, c, y, x]
    Y = conv2d(C1_nchw16c, W2, pad = 1)
  }
}
TEX
expect 0 'anchor Yb \(conv2d\)' -- "$work/taken.tex" --target x86 --emit graph -o -
expect 0 'taken +x86 +PASS' -- run "$work/taken.tex" --target x86
cat > "$work/own_schedule.tex" <<'TEX'
import nn.conv2d
op own_schedule(X: f32[1, 16, 8, 8], W1: f32[16, 16, 3, 3], W2: f32[16, 16, 3, 3]) -> Y {
  compute {
    C1 = conv2d(X, W1, pad = 1)
    A1[n, c, y, x] = max(C1[n, c, y, x], 0.0)
    Y = conv2d(A1, W2, pad = 1)
  }
  schedule cpu {
    knob PAR in [true, false]
  }
}
TEX
expect 0 'anchor Yb \(conv2d\)' -- "$work/own_schedule.tex" --target x86 --emit graph -o -

if python3 "$root/tests/e2e/graph/random_layout_plan.py" "$texc" "$work/random" --count 10 --seed 7 --want-padded; then
  echo "ok: random networks"
else
  echo "FAIL: random networks"; failures=$((failures + 1))
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
