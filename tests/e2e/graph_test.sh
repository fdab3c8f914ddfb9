#!/usr/bin/env bash
# Graphs of fused kernels (docs/graph.md):
#  - examples/10_network.tex: --emit graph lists its 6 kernels (anchor, stages, FLOPs) and 5
#    intermediates; the header declares the kernels and the entry small_cnn with the op's signature;
#    texc run passes on interp, x86 and arm with every kernel checked on its own inputs, with
#    --check full and --check none too; on vdla it stays one kernel and --emit graph says so (the
#    GPU targets' graphs: cuda_graph_test.sh);
#  - a C program calls the compiled entry and the kernels one by one: the same output, bit for bit;
#  - the caller's workspace: small_cnn_with_workspace from C on x86 and arm (qemu), no allocation,
#    texc run's output (graph/caller_workspace.c);
#  - graph/resnet_block.tex (ResNet basic block, 56x56x64) passes on x86 as 2 kernels;
#  - graph/const_net.tex: const weights re-laid out in the prepare function, the rest a graph of two
#    kernels, on interp, x86 and arm; graph/const_spanning.tex: a step naming a prepared stage is a
#    remark naming the op's prepare function;
#  - an op with one group keeps one function (examples/03_conv_relu.tex);
#  - --no-graph-fusion: small_cnn as 10 kernels (one per call and own stage), passing on x86;
#  - graph/gather_oob.tex: a gather out of bounds in the second kernel fails naming that kernel;
#  - --emit graph-dot: examples/10_network.tex's digraph has its 6 kernel boxes, 8 input/output
#    nodes and 13 edges with the right ends and labels (graph_dot_check.py); `dot -Tsvg` accepts it
#    when graphviz is installed (skipped otherwise); an op with a prepare function and one kernel too.
# usage: graph_test.sh TEXC REPO_ROOT TEXRT_LIB [TEXRT_AARCH64_LIB]
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
texrt=$(realpath "$3")
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
net="$root/examples/10_network.tex"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
have_arm=false
if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null; then have_arm=true; fi

expect 0 'op small_cnn: 6 kernels, host entry small_cnn' -- "$net" --target x86 -D S=16 --emit graph -o -
expect 0 'kernel small_cnn_k0: complex-out-fusible, anchor Yb \(conv2d\), [0-9]+ FLOP' -- "$net" --target x86 -D S=16 --emit graph -o -
expect 0 'stages: C2_Xp, C2_Wb, C2_Yb, C2, A2' -- "$net" --target x86 -D S=16 --emit graph -o -
expect 0 'kernel small_cnn_k5: reduction, anchor Mx \(softmax\)' -- "$net" --target arm -D S=16 --emit graph -o -
expect 0 'A1 f32\[1, 8, 16, 16\]: 8192 bytes at workspace offset 0, written by small_cnn_k0, last read by small_cnn_k1' -- \
  "$net" --target interp -D S=16 --emit graph -o -
# A2 reuses A1's bytes (A1 is dead once k1 ran): the plan meets the liveness lower bound.
expect 0 'A2 f32\[1, 16, 8, 8\]: 4096 bytes at workspace offset 0' -- "$net" --target x86 -D S=16 --emit graph -o -
expect 0 'workspace: 10240 bytes \(liveness lower bound 10240 bytes; 15424 bytes without reuse\)' -- \
  "$net" --target x86 -D S=16 --emit graph -o -
expect 0 '#define SMALL_CNN_WORKSPACE_BYTES 10240' -- "$net" --target x86 -D S=16 --emit header -o -
expect 0 'op small_cnn: 1 kernel \(6 groups, none of which VDLA runs' -- \
  "$net" --target vdla -D S=16 --emit graph -o -
expect 0 'void small_cnn\(const float\* X, const float\* W1, const float\* B1, const float\* W2, const float\* B2, const float\* W3, const float\* B3, float\* Y\);' -- \
  "$net" --target x86 -D S=16 --emit header -o -
expect 0 'void small_cnn_k2\(const float\* W2, const float\* B2, const float\* P1, float\* A2\);' -- \
  "$net" --target x86 -D S=16 --emit header -o -
expect 0 'op conv_relu: 1 kernel \(one fused group' -- "$root/examples/03_conv_relu.tex" --target x86 -D S=14 --emit graph -o -
# --no-graph-fusion: every layer call and own stage a kernel of its own (the bias + ReLU apart
# from its conv, the flatten apart from its pool), computing the same.
expect 0 'op small_cnn: 10 kernels, host entry small_cnn' -- "$net" --target x86 -D S=16 --no-graph-fusion --emit graph -o -
expect 0 'kernel small_cnn_k1: injective, no anchor' -- "$net" --target x86 -D S=16 --no-graph-fusion --emit graph -o -
expect 0 'small_cnn +x86 +PASS .*10 kernels checked on their own inputs' -- run "$net" --target x86 -D S=16 --no-graph-fusion

for target in interp x86; do
  expect 0 'small_cnn +[a-z0-9-]+ +PASS .*6 kernels checked on their own inputs' -- run "$net" --target "$target" -D S=16
done
$have_arm && expect 0 'small_cnn +arm +PASS .*6 kernels checked on their own inputs' -- run "$net" --target arm -D S=16
expect 0 'small_cnn +x86 +PASS .*not checked' -- run "$net" --target x86 -D S=16 --check none
expect 0 '"kernels_checked": 6' -- run "$net" --target interp -D S=16 --json
expect 1 '--check takes full, sampled or none' -- run "$net" --target x86 --check most
expect 0 'small_cnn +cuda-interp +PASS .*7 kernels checked on their own inputs' -- run "$net" --target cuda-interp -D S=8

# --emit graph-dot: the structure of the digraph (graph_dot_check.py), then Graphviz's own parser.
if "$texc" "$net" --target x86 -D S=16 --emit graph-dot -o "$work/net.graph.dot" &&
   python3 "$root/tests/e2e/graph/graph_dot_check.py" "$work/net.graph.dot"; then
  echo "ok: graph-dot of small_cnn"
else
  echo "FAIL: graph-dot of small_cnn"
  failures=$((failures + 1))
fi
if command -v dot >/dev/null; then
  if dot -Tsvg "$work/net.graph.dot" -o "$work/net.svg" && grep -q '<svg' "$work/net.svg"; then
    echo "ok: dot -Tsvg accepts the graph-dot"
  else
    echo "FAIL: dot -Tsvg rejects the graph-dot"
    failures=$((failures + 1))
  fi
else
  echo "skip: dot -Tsvg (graphviz is not installed)"
fi
expect 0 '"const_net_prepare" -> "const_net_k0" \[label="Wb f32\[1, 1, 3, 3, 5, 16\]\\n2880 bytes"\]' -- \
  "$root/tests/e2e/graph/const_net.tex" --target x86 --emit graph-dot -o -
expect 0 '"conv_relu" \[shape=box, label="conv_relu\\n1 kernel \(one fused group\)' -- \
  "$root/examples/03_conv_relu.tex" --target x86 -D S=14 --emit graph-dot -o -
expect 0 'label="small_cnn\\n1 kernel \(6 groups, none of which VDLA runs' -- \
  "$net" --target vdla -D S=16 --emit graph-dot -o -
expect 1 'its outputs are --emit loops, graph and graph-dot' -- "$net" --target interp --emit obj

# The compiled entry against its kernels called one by one, from C.
if "$texc" "$net" --target x86 -D S=16 -o "$work/net" &&
   cc -O1 -I "$work" "$root/tests/e2e/graph/entry_calls_kernels.c" "$work/net.o" "$texrt" -lstdc++ -lpthread -lm \
     -o "$work/entry" && "$work/entry"; then
  echo "ok: the C entry calls its kernels"
else
  echo "FAIL: the C entry against its kernels"
  failures=$((failures + 1))
fi

# The caller's workspace (graph/caller_workspace.c): small_cnn_with_workspace twice on the
# program's buffer and small_cnn give texc run's output (--save-io), the first allocating nothing
# (malloc & co. counted), on x86 and on arm under qemu. S=96: a workspace of 400 KB, which
# small_cnn allocates (over 64 KB), so the counter is seen to count, and two conv kernels whose
# padded inputs (113 KB, 78 KB) are scratch arguments in it (lower/graph/ScratchParameters.h).
expect 0 '#define SMALL_CNN_WORKSPACE_ALIGNMENT 64' -- "$net" --target x86 -D S=16 --emit header -o -
expect 0 'void small_cnn_with_workspace\(const float\* X, .*, float\* Y, void\* workspace\);' -- \
  "$net" --target x86 -D S=16 --emit header -o -
expect 0 'small_cnn +x86 +PASS' -- run "$net" --target x86 -D S=96 --save-io "$work/io"
expect 0 'scratch: C2_Xp f32\[20000\]: 80000 bytes at workspace offset [0-9]+' -- "$net" --target x86 -D S=96 --emit graph -o -
expect 0 'workspace: 410176 bytes \(liveness lower bound 410176 bytes' -- "$net" --target arm -D S=96 --emit graph -o -
# caller_workspace ARCH CC RUNNER TEXRT
caller_workspace() {
  local arch=$1 cc=$2 runner=$3 rt=$4
  mkdir -p "$work/$arch"
  if "$texc" "$net" --target "$arch" -D S=96 -o "$work/$arch/net" &&
     "$cc" -std=c11 -O1 -Wall -Werror -I "$work/$arch" "$root/tests/e2e/graph/caller_workspace.c" "$work/$arch/net.o" \
       "$rt" -lstdc++ -lpthread -lm -o "$work/$arch/caller_workspace" &&
     $runner "$work/$arch/caller_workspace" "$work/io"; then
    echo "ok: the caller's workspace ($arch)"
  else
    echo "FAIL: the caller's workspace ($arch)"
    failures=$((failures + 1))
  fi
}
caller_workspace x86 cc "" "$texrt"
if $have_arm && [ -n "${4:-}" ] && [ -f "$4" ]; then
  caller_workspace arm aarch64-linux-gnu-gcc "qemu-aarch64 -L /usr/aarch64-linux-gnu" "$(realpath "$4")"
else
  echo "skip: the caller's workspace on arm (no qemu-aarch64, cross compiler or aarch64 libtexrt.a)"
fi

expect 0 'resnet_block +x86 +PASS .*2 kernels checked on their own inputs' -- run "$root/tests/e2e/graph/resnet_block.tex" --target x86
expect 0 'op resnet_block: 2 kernels' -- "$root/tests/e2e/graph/resnet_block.tex" --target x86 --emit graph -o -
for target in interp x86; do
  expect 0 'const_net +[a-z0-9-]+ +PASS .*2 kernels checked' -- run "$root/tests/e2e/graph/const_net.tex" --target "$target"
done
# The end-to-end check of a graph compares every element of P (300): by default with the kernels'
# outputs (each kernel checked against the reference on its own inputs), with --check full with the
# whole op's reference; the kernels are small, so checked whole either way (2220 points).
expect 0 'const_net +x86 +PASS .*2520 points checked \(all\), 2 kernels' -- run "$root/tests/e2e/graph/const_net.tex" --target x86
expect 0 'const_net +x86 +PASS .*2520 points checked \(all\), 2 kernels' -- run "$root/tests/e2e/graph/const_net.tex" --target x86 --check full
$have_arm && expect 0 'const_net +arm +PASS .*2 kernels checked' -- run "$root/tests/e2e/graph/const_net.tex" --target arm
# A step of the op's own schedule naming a prepared stage and a kernel's is left out, with a remark
# naming the op's prepare function (not one named after the kernel) and the kernel.
expect 0 "const_spanning.tex:15:5: remark: compute_at not applied: 'S' depends only on const inputs and is computed once, by const_spanning_prepare, not in const_spanning_k0" -- \
  run "$root/tests/e2e/graph/const_spanning.tex" --target x86 --remarks
expect 0 'const_spanning +x86 +PASS .*2 kernels checked' -- run "$root/tests/e2e/graph/const_spanning.tex" --target x86
expect 0 'prepare function const_net_prepare \(once per const inputs\): stages Wb' -- \
  "$root/tests/e2e/graph/const_net.tex" --target x86 --emit graph -o -
expect 0 'void const_net\(const float\* X, const float\* Wb, float\* P\);' -- \
  "$root/tests/e2e/graph/const_net.tex" --target x86 --emit header -o -
# A kernel the reference proves wrong on its inputs: the FAIL names the kernel and its stages.
expect 0 'gather_net +x86 +PASS .*2 kernels checked' -- run "$root/tests/e2e/graph/gather_oob.tex" --target x86 --input-range I=0,1
expect 1 "kernel gather_net_k1 \(stages Xq, P, G\): reference: out-of-bounds read of 'P'" -- \
  run "$root/tests/e2e/graph/gather_oob.tex" --target x86 --input-range I=5,9
expect 1 "kernel gather_net_k1 \(stages Xq, P, G\): reference: out-of-bounds read of 'P'" -- \
  run "$root/tests/e2e/graph/gather_oob.tex" --target interp --input-range I=5,9
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
