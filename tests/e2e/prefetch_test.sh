#!/usr/bin/env bash
# The prefetch schedule primitive (docs/language.md "prefetch", lower/schedule/Prefetch.cpp):
#   - rows.tex (a 61-row matrix-vector product, row tiles of 4, A prefetched one tile ahead):
#     `--emit loops` shows the prefetch nest, one prefetch per 64-byte line of the next tile's 4
#     rows (400 floats: 25 lines), its row clamped into A (min(io*4 + 4, 57)) and the tail tile's
#     prefetch at row 57; `--emit llvm` has llvm.prefetch (read, locality 3, data cache) on x86
#     and arm; for cuda nothing is placed, a remark at the primitive says so;
#   - blocks.tex (from = an enclosing loop): the prefetch at Y.r of the block two c steps ahead;
#   - both run on x86, arm (under qemu-aarch64, where there is one) and interp against the
#     reference interpreter;
#   - stdlib conv2d_nchwc: weights larger than half the L2 (ResNet-18's 512-channel 3x3 layer) are
#     prefetched one input-channel block ahead (CVC_PF, default true), its output still checked;
#     with --knob CVC_PF=false or weights that fit, no prefetch; conv2d_blocked's Wb likewise (CVB_PF).
# usage: prefetch_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
export TEXC_STDLIB="$root/stdlib"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=check.sh
. "$root/tests/e2e/check.sh"
has() { grep -qF -- "$2" "$1"; }
hasnt() { [ -s "$1" ] && ! grep -qF -- "$2" "$1"; }
passes() { "$texc" run "$@" > "$work/run.out" 2>&1 && grep -q " PASS " "$work/run.out" || { cat "$work/run.out"; return 1; }; }
dir=$root/tests/e2e/prefetch

"$texc" "$dir/rows.tex" --target x86 --emit loops,llvm -o "$work/rows"
check "rows: the prefetch loop over the next tile's 25 lines" has "$work/rows.loops.txt" "for A.pf0.line in 0..25 {"
check "rows: the next tile's rows, clamped into A" has "$work/rows.loops.txt" "prefetch:i32(A[min(io*4 + 4, 57)*100 + A.pf0.line*16])"
check "rows: the tail tile prefetches the last row" has "$work/rows.loops.txt" "prefetch:i32(A[A.pf0.line*16 + 5700])"
check "rows: llvm.prefetch, read, locality 3, data cache (x86)" grep -qE "call void @llvm.prefetch.p0\(ptr .*, i32 0, i32 3, i32 1\)" "$work/rows.ll"
"$texc" "$dir/rows.tex" --target arm --emit llvm -o "$work/rows_arm"
check "rows: llvm.prefetch (arm)" grep -qE "call void @llvm.prefetch.p0\(ptr .*, i32 0, i32 3, i32 1\)" "$work/rows_arm.ll"
"$texc" "$dir/rows.tex" --target cuda --emit llvm -o "$work/rows_cuda" --remarks > "$work/cuda.remarks" 2>&1
check "rows: cuda, no prefetch" hasnt "$work/rows_cuda.ll" "prefetch"
check "rows: cuda, a remark at the primitive" grep -qE "rows.tex:14:5: remark: prefetch\(A, ii, \.\.\.\) not applied: target 'cuda' has no prefetch" "$work/cuda.remarks"

"$texc" "$dir/blocks.tex" --target x86 --emit loops -o "$work/blocks"
check "blocks: at Y.r, two blocks of c ahead, clamped" has "$work/blocks.loops.txt" "prefetch:i32(W[Y.f*144 + min(Y.c + 2, 5)*24 + Y.r*8])"

targets="x86 interp"
if command -v qemu-aarch64 > /dev/null 2>&1 || [ "$(uname -m)" = aarch64 ]; then targets="$targets arm"; else echo "note: no qemu-aarch64: arm is compiled, not run"; fi
for t in $targets; do
  check "rows on $t" passes "$dir/rows.tex" --target $t
  check "blocks on $t" passes "$dir/blocks.tex" --target $t
done

# The stdlib's use: conv2d_nchwc's weights one input-channel block ahead, where they exceed half the L2.
cat > "$work/conv.tex" <<'EOF'
import nn.conv2d_nchwc
op big(X: f32[1, 32, 7, 7, 16], W: f32[32, 32, 3, 3, 16, 16]) -> Y {
  compute { Y = conv2d_nchwc(X, W, stride = 1, pad = 1) }
}
op small(X: f32[1, 4, 9, 9, 16], W: f32[4, 4, 3, 3, 16, 16]) -> Y {
  compute { Y = conv2d_nchwc(X, W, stride = 1, pad = 1) }
}
op nchw(X: f32[1, 512, 7, 7], W: f32[512, 512, 3, 3]) -> Y {
  compute { Y = conv2d_blocked(X, W, stride = 1, pad = 1) }
}
EOF
"$texc" "$work/conv.tex" --op big --target x86 --emit loops -o "$work/big"
check "conv2d_nchwc, 9.4 MB of weights: prefetched one block ahead" has "$work/big.loops.txt" "min(Y.cb + 1, 31)*2304 + Y.ry*768 + Y.rx*256 + W.pf0.line*16])"
"$texc" "$work/conv.tex" --op big --target x86 --emit loops -o "$work/big_off" --knob CVC_PF=false
check "conv2d_nchwc with CVC_PF=false: no prefetch" hasnt "$work/big_off.loops.txt" "prefetch"
"$texc" "$work/conv.tex" --op small --target x86 --emit loops -o "$work/small"
check "conv2d_nchwc, 147 KB of weights: no prefetch" hasnt "$work/small.loops.txt" "prefetch"
check "conv2d_nchwc with the prefetch on x86" passes "$work/conv.tex" --op big --target x86
"$texc" "$work/conv.tex" --op nchw --target x86 --emit loops -o "$work/nchw"
check "conv2d_blocked, 9.4 MB of weights: Wb prefetched one block ahead" has "$work/nchw.loops.txt" "min(Yb.cb + 1, 31)*2304 + Yb.ry*768 + Yb.rx*256 + Wb.pf0.line*16])"
"$texc" "$work/conv.tex" --op nchw --target x86 --emit loops -o "$work/nchw_off" --knob CVB_PF=false
check "conv2d_blocked with CVB_PF=false: no prefetch" hasnt "$work/nchw_off.loops.txt" "prefetch"
check "conv2d_blocked with the prefetch on x86" passes "$work/conv.tex" --op nchw --target x86

if [ $failed -ne 0 ]; then
  echo "$failed failure(s)"
  exit 1
fi
echo "all passed"
