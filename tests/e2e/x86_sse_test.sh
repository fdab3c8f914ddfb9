#!/usr/bin/env bash
# x86_sse_test.sh TEXC ROOT: the target x86-sse (x86-64 with SSE4.2 and no AVX: LLVM's x86-64-v2,
# ir/Target.cpp), added by following docs/architecture.md's "Adding a target". Stdlib test ops run
# with --target x86-sse (JIT on this host) pass the reference check; their assembly uses xmm
# registers and never ymm or zmm (which x86 --mcpu x86-64-v3 does use for the same op, so the check
# can fail); the `schedule cpu` blocks apply (the loops equal x86's for the same CPU); --mcpu still
# chooses another CPU; `texc tune` has a runner for it.
set -u
texc=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for name in matmul conv2d gelu layer_norm dense softmax; do
  file=$root/tests/stdlib/$name.tex
  if ! "$texc" run "$file" --target x86-sse --repeat 1 > "$work/$name.run" 2>&1; then
    fail "texc run $name.tex --target x86-sse"; cat "$work/$name.run"; continue
  fi
  ops=$(grep -c ' x86-sse PASS ' "$work/$name.run")
  [ "$ops" -ge 1 ] || fail "$name.tex: no op ran on x86-sse: $(cat "$work/$name.run")"
  "$texc" "$file" --target x86-sse --emit asm -o "$work/$name.s" > /dev/null 2>&1 || { fail "$name.tex: --emit asm"; continue; }
  wide=$(grep -cE '%(ymm|zmm)[0-9]' "$work/$name.s")
  narrow=$(grep -cE '%xmm[0-9]' "$work/$name.s")
  [ "$wide" = 0 ] || fail "$name.tex: x86-sse assembly uses $wide ymm/zmm operands"
  [ "$narrow" -gt 0 ] || fail "$name.tex: x86-sse assembly uses no xmm register"
  echo "ok: $name.tex on x86-sse: $ops ops pass, $narrow xmm operands, no ymm/zmm"
done

# The check can fail: x86 for an AVX2 CPU uses ymm registers on the same op.
"$texc" "$root/tests/stdlib/matmul.tex" --target x86 --mcpu x86-64-v3 --emit asm -o "$work/avx2.s" > /dev/null 2>&1
grep -qE '%ymm[0-9]' "$work/avx2.s" || fail "x86 --mcpu x86-64-v3: no ymm register in matmul's assembly"
# --mcpu overrides x86-sse's default CPU.
"$texc" "$root/tests/stdlib/matmul.tex" --target x86-sse --mcpu x86-64-v3 --emit asm -o "$work/sse-v3.s" > /dev/null 2>&1
grep -qE '%ymm[0-9]' "$work/sse-v3.s" || fail "x86-sse --mcpu x86-64-v3: no ymm register in matmul's assembly"

# `schedule cpu` applies: the loops of the example matmul (its schedule cpu block) are those of
# x86 for the same CPU.
args="-D M=64 -D N=64 -D K=64"
"$texc" "$root/examples/02_matmul.tex" $args --target x86-sse --emit loops -o - > "$work/sse.loops" 2>&1 &&
  "$texc" "$root/examples/02_matmul.tex" $args --target x86 --mcpu x86-64-v2 --emit loops -o - > "$work/x86.loops" 2>&1 ||
  fail "--emit loops of 02_matmul.tex"
cmp -s "$work/sse.loops" "$work/x86.loops" || fail "x86-sse's loops of 02_matmul.tex differ from x86 --mcpu x86-64-v2's"
# parallel(io) and vectorize(ji) of its schedule cpu block
grep -q 'parallel io in' "$work/sse.loops" && grep -q 'ramp(' "$work/sse.loops" ||
  fail "02_matmul.tex's schedule cpu (parallel, vectorize) is not in x86-sse's loops"
"$texc" run "$root/examples/02_matmul.tex" $args --target x86-sse --repeat 1 > "$work/mm.run" 2>&1 ||
  fail "texc run 02_matmul.tex --target x86-sse: $(cat "$work/mm.run")"

# texc tune measures candidates on it.
"$texc" tune "$root/tests/stdlib/matmul.tex" --op matmul_small --target x86-sse --trials 2 \
  --records "$work/sse.jsonl" > "$work/tune.out" 2>&1 || fail "texc tune --target x86-sse: $(tail -3 "$work/tune.out")"
grep -q '"target": *"x86-sse"' "$work/sse.jsonl" 2>/dev/null || fail "texc tune --target x86-sse wrote no x86-sse record"

if [ "$failures" -gt 0 ]; then echo "x86_sse_test: $failures failures"; exit 1; fi
echo "x86_sse_test: ok"
