#!/usr/bin/env bash
# Imported injective ops fuse into their producers and consumers as local stages do
# (docs/language.md "Automatic fusion", lower/AutoFuse.h): checks the loops texc emits for
# imported_fusion/*.tex as text, and that every op there still matches the reference interpreter.
#  - pool_relu, conv_bias_relu, conv_bias_clip, dense_relu: one loop nest, the producer's
#    intermediate tensor allocated inside it (never whole), none of the carried schedule's loops;
#    conv_bias_relu's relu vectorized along the conv's register tile columns;
#    pool_relu emits exactly the loops of the same op with relu written inline;
#  - relu_alone (a call that stands alone), a reduction whose loops do not allow the fusion
#    (unfusable), --no-fuse, and a caller schedule naming relu's stage keep the stage in a nest of
#    its own (with the op's schedule, but for the last).
# usage: imported_fusion_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
dir=$root/tests/e2e/imported_fusion
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

check() {
  local what=$1
  shift
  if "$@" >/dev/null 2>&1; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

# loops FILE OP [ARGS...]: the loops of op OP (interp) into $work/OP.txt.
loops() {
  local file=$1 op=$2
  shift 2
  "$texc" "$dir/$file" --op "$op" --emit loops -o - "$@" >"$work/$op.txt" 2>&1 || echo "FAIL: texc $file --op $op exited $?"
}
# The number of outermost loop nests (loops inside allocations only) in the loops file $1.
top_loops() { nests "$1" | awk '$1 != "alloc" {print $1}' | sort -u | wc -l; }
# "NEST BUFFER" for every store in the loops file $1: the outermost nest (numbered) that holds it.
nests() {
  awk '
    /^func / { depth = 0; next }
    {
      line = $0; sub(/^ +/, "", line)
      if (line ~ /^(for|parallel|vectorized|unrolled) / && loops == 0) nest++
      if (line ~ /^allocate /) { b = line; sub(/^allocate /, "", b); sub(/:.*/, "", b); print "alloc", b, loops + 0 }
      if (line ~ /^} else.*[{]$/) next  # `} else if (...) {`: one branch closes, the next opens at the same depth
      if (line ~ /^}/) { if (kind[depth] == "loop") loops--; depth--; next }
      if (line ~ /[{]$/) { depth++; kind[depth] = (line ~ /^(for|parallel|vectorized|unrolled) /) ? "loop" : "other"; if (kind[depth] == "loop") loops++ }
      if (line ~ /^[A-Za-z_.0-9]+\[.*\] = /) { b = line; sub(/\[.*/, "", b); print nest, b }
    }' "$1"
}
# True if buffer $2 is allocated inside a loop in file $1 (per iteration, never whole).
allocated_in_loop() { nests "$1" | awk -v b="$2" '$1 == "alloc" && $2 == b && $3 > 0 {found = 1} END {exit !found}'; }
# True if every store to buffers $2 and $3 lies in one and the same outermost nest of file $1.
one_nest_writes() { test "$(nests "$1" | awk -v a="$2" -v b="$3" '$1 != "alloc" && ($2 == a || $2 == b) {print $1}' | sort -u | wc -l)" -eq 1; }
# True if buffer $2 is allocated outside every loop in file $1 (whole).
allocated_whole() { nests "$1" | awk -v b="$2" '$1 == "alloc" && $2 == b && $3 == 0 {found = 1} END {exit !found}'; }

# fused FILE OP INTERMEDIATE LOOP_PREFIX: INTERMEDIATE and Y written in one nest, INTERMEDIATE not allocated whole, no loop of the
# carried injective schedule (named LOOP_PREFIX...).
fused() {
  loops "$1" "$2"
  check "$2: $3 and Y written in one loop nest" one_nest_writes "$work/$2.txt" "$3" Y
  check "$2: $3 is allocated inside a loop (never whole)" allocated_in_loop "$work/$2.txt" "$3"
  check "$2: no loop of the carried schedule ($4)" bash -c "! grep -q '$4' '$work/$2.txt'"
}

fused pool_relu.tex pool_relu P Y_relu_
fused conv_bias_relu.tex conv_bias_relu C Y_relu_
check "conv_bias_relu: the bias add is inlined (no A, no broadcast_add loops)" \
  bash -c "! grep -qE 'allocate A|A_badd_|Y_badd_' '$work/conv_bias_relu.txt'"
# conv2d_blocked writes its register tile back to NCHW point by point (unrolled loops): relu
# follows with vectors along the tile's columns (contiguous in Y), not serial loops that LLVM
# would vectorize across the channels as scatters.
check "conv_bias_relu: relu stores vectors along the tile's columns" \
  grep -qE 'Y\[ramp\(.*, 1, 7\)\] = max\(C\[ramp\(' "$work/conv_bias_relu.txt"
fused conv_bias_clip.tex conv_bias_clip C A_badd_
fused dense_relu.tex dense_relu D Y_r_

loops pool_relu_inline.tex pool_relu
cp "$work/pool_relu.txt" "$work/inline.txt"
loops pool_relu.tex pool_relu
check "pool_relu: the same loops as relu written inline" cmp "$work/pool_relu.txt" "$work/inline.txt"

# A call standing alone keeps its op's schedule.
loops dense_relu.tex relu_alone
check "relu_alone: relu2's schedule applies (parallel Y_r_o)" grep -qE '^  parallel Y_r_o ' "$work/relu_alone.txt"
# A reduction whose loops do not allow the fusion: the call gets its op's schedule back.
loops unfusable.tex unfusable
check "unfusable: relu2's schedule applies (parallel Y_r_o)" grep -qE '^ *parallel Y_r_o ' "$work/unfusable.txt"
check "unfusable: S allocated whole" allocated_whole "$work/unfusable.txt" S
# --no-fuse keeps the carried schedule: two nests, P whole.
loops pool_relu.tex pool_relu --no-fuse
check "--no-fuse: two nests" test "$(top_loops "$work/pool_relu.txt")" -eq 2
check "--no-fuse: relu's schedule applies" grep -q 'Y_relu_' "$work/pool_relu.txt"
# The caller's schedule names Y: it decides, so Y is a nest of its own over a whole P.
loops pool_relu_scheduled.tex pool_relu
check "caller schedule: P allocated whole" allocated_whole "$work/pool_relu.txt" P
check "caller schedule: the caller's parallel(Y.c)" grep -qE 'parallel Y\.c ' "$work/pool_relu.txt"
check "caller schedule: relu's schedule does not apply" bash -c "! grep -q 'Y_relu_' '$work/pool_relu.txt'"

# Every op against the reference interpreter, on the loop interpreter and x86.
for target in interp x86; do
  for f in "$dir"/*.tex; do
    for op in $(grep -oE '^op [a-z_0-9]+\(X: f32\[[0-9]' "$f" | sed -E 's/^op ([a-z_0-9]+).*/\1/'); do
      check "$(basename "$f") --op $op on $target" bash -c "'$texc' run '$f' --op $op --target $target | grep -q PASS"
    done
  done
done

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all imported fusion checks passed"
