#!/usr/bin/env bash
# Generated large inputs: texc must answer each within a time and memory limit, either compiling
# it (exit 0) or with a located diagnostic (exit 1, `FILE:LINE:COL: error: ...`), and never crash,
# abort, hang or report an internal error (docs/cli.md). The inputs are the ones that once
# took minutes or gigabytes: long elementwise chains (2048 stages per op at most), a chain whose inlined expression doubles per
# stage, huge unrolls, a thousand chained splits (of a spatial and of a reduction loop), rank-800 tensors, huge shapes, nesting at and
# past the limit (docs/language.md "Limits"), long operator chains and `else if` chains.
#
# usage: large_inputs_test.sh TEXC [SECONDS_PER_CASE=20] [MEMORY_KB=2000000]
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 TEXC [SECONDS_PER_CASE] [MEMORY_KB]" >&2
  exit 2
fi
texc=$(realpath "$1")
limit_s=${2:-20}
limit_kb=${3:-2000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
passed=0
failed=0

# check NAME EXPECT [TEXC ARGS...]: EXPECT is "ok" (exit 0), "error" (exit 1 with a located
# diagnostic) or "error:TEXT" (the diagnostic contains TEXT).
check() {
  local name=$1 expect=$2
  shift 2
  local start end rc problem=""
  start=$(date +%s.%N)
  (ulimit -v "$limit_kb" && exec timeout -s KILL "$limit_s" "$texc" "$@") >"$name.out" 2>"$name.err"
  rc=$?
  end=$(date +%s.%N)
  if grep -q "internal error" "$name.err"; then problem="internal error"; fi
  case "$expect" in
    ok) [ "$rc" -eq 0 ] || problem="${problem:+$problem, }exit $rc (expected 0)" ;;
    error*)
      [ "$rc" -eq 1 ] || problem="${problem:+$problem, }exit $rc (expected 1)"
      grep -q "^$name.tex:[0-9]*:[0-9]*: error: " "$name.err" || problem="${problem:+$problem, }no located diagnostic"
      local text=${expect#error}
      text=${text#:}
      if [ -n "$text" ] && ! grep -qF -- "$text" "$name.err"; then problem="${problem:+$problem, }diagnostic lacks '$text'"; fi
      ;;
  esac
  [ "$rc" -eq 137 ] && problem="${problem:+$problem, }killed after ${limit_s} s or out of memory"
  local took
  took=$(printf '%.1f' "$(echo "$end - $start" | bc)")
  if [ -z "$problem" ]; then
    passed=$((passed + 1))
    echo "ok    $name (${took} s)"
  else
    failed=$((failed + 1))
    echo "FAIL  $name (${took} s): $problem"
    head -n 1 "$name.err" | cut -c1-240 | sed "s/^/      /"
  fi
}

compile() { echo "$1.tex" --target "${2:-interp}" --emit "${3:-loops}" -o "$1"; }

# ---- long chains of stages
chain() {  # NAME STAGES BODY(with P for the previous stage)
  local name=$1 n=$2 body=$3
  {
    echo "op $name(X: f32[64]) -> T$n {"
    echo "  compute {"
    echo "    T1[i] = X[i] + 1.0"
    for ((k = 2; k <= n; k++)); do echo "    T$k[i] = ${body//P/T$((k - 1))}"; done
    echo "  }"
    echo "}"
  } >"$name.tex"
}
chain chain2000 2000 'P[i] * 0.5 + 1.0'
check chain2000 ok $(compile chain2000 x86 llvm)
check chain2000_run ok run chain2000.tex --target interp --repeat 1
chain chain5000 5000 'P[i] + 1.0'  # past the 2048 stages of an op (took 35 s)
check chain5000 "error:op 'chain5000' computes more than 2048 tensors" $(compile chain5000 x86 llvm)
chain square40 40 'P[i] * P[i]'  # inlining every stage would double the expression per stage
check square40 ok run square40.tex --target interp --repeat 1

# ---- a 14 MB source: parsing takes about 160 bytes per byte, more than the memory limit here;
# running out is a located error (it was an abort: std::bad_alloc)
python3 -c '
import sys
op = "op o%d(X: f32[64]) -> Y {\n  compute { Y[i] = X[i] * 2.0 + 1.0 }\n}\n"
with open("source14m.tex", "w") as f:
    n = size = 0
    while size < 14 * 1024 * 1024:
        size += f.write(op % n)
        n += 1
'
check source14m "error:too large to parse in the memory texc may use" $(compile source14m)

# ---- unrolls
unroll_op() {  # NAME EXTENT
  printf 'op %s(X: f32[%s]) -> Y {\n  compute { Y[i] = X[i] + 1.0 }\n  schedule cpu { unroll(Y.i) }\n}\n' "$1" "$2" >"$1.tex"
}
unroll_op unroll1m 1048576
check unroll1m "error:cannot unroll loop 'Y.i' of extent 1048576" $(compile unroll1m x86 llvm)
unroll_op unroll64k 65536
check unroll64k "error:cannot unroll loop 'Y.i' of extent 65536" $(compile unroll64k x86 llvm)
unroll_op unroll1k 1024
check unroll1k ok $(compile unroll1k x86 llvm)
cat >unroll_nested.tex <<'EOF'
op unroll_nested(X: f32[64, 64]) -> Y {
  compute { Y[i, j] = X[i, j] * 2.0 }
  schedule cpu {
    unroll(Y.j)
    unroll(Y.i)
  }
}
EOF
check unroll_nested "error:cannot unroll loop 'Y.i' of extent 64" $(compile unroll_nested x86 llvm)

# ---- a thousand chained splits
{
  echo "op splits(X: f32[1024]) -> Y {"
  echo "  compute { Y[i] = X[i] + 1.0 }"
  echo "  schedule cpu {"
  echo "    o1, i1 = split(Y.i, 1)"
  for ((k = 2; k <= 1000; k++)); do echo "    o$k, i$k = split(o$((k - 1)), 1)"; done
  echo "  }"
  echo "}"
} >splits.tex
check splits ok $(compile splits x86 llvm)
# Chained splits of a reduction loop, each new pair splitting the last outer (o) or inner (i) loop:
# the reduction's index becomes a sum of a thousand loop variables, which the simplifier once
# re-linearized at every + of the sum (minutes; now one linear form per sum).
for which in o i; do
  {
    echo "op rsplits_$which(A: f32[8, 64], B: f32[64, 8]) -> C {"
    echo "  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..64) }"
    echo "  schedule cpu {"
    echo "    o1, i1 = split(C.k, 1)"
    for ((k = 2; k <= 1000; k++)); do echo "    o$k, i$k = split($which$((k - 1)), 1)"; done
    echo "  }"
    echo "}"
  } >"rsplits_$which.tex"
  check "rsplits_$which" ok $(compile "rsplits_$which" x86 llvm)
  check "rsplits_${which}_run" ok run "rsplits_$which.tex" --target interp --repeat 1
done

# ---- rank-800 tensors, huge shapes
idx=$(seq -s, -f 'i%g' 1 800)
ones=$(printf '1,%.0s' $(seq 1 800))
printf 'op rank800(X: f32[%s]) -> Y {\n  compute { Y[%s] = X[%s] + 1.0 }\n}\n' "${ones%,}" "$idx" "$idx" >rank800.tex
check rank800 "error:tensor 'X' has 800 dimensions; the limit is 64" $(compile rank800 x86 llvm)
idx=$(seq -s, -f 'i%g' 1 64)
ones=$(printf '1,%.0s' $(seq 1 64))
printf 'op rank64(X: f32[%s]) -> Y {\n  compute { Y[%s] = X[%s] + 1.0 }\n}\n' "${ones%,}" "$idx" "$idx" >rank64.tex
check rank64 ok $(compile rank64 x86 llvm)
printf 'op huge(X: f32[1099511627776]) -> Y {\n  compute { Y[i] = X[i] * 2.0 }\n}\n' >huge.tex
check huge ok $(compile huge x86 llvm)
printf 'op huge_product(X: f32[4294967296, 4294967296, 4294967296]) -> Y {\n  compute { Y[i, j, k] = X[i, j, k] }\n}\n' >huge_product.tex
check huge_product "error:tensor 'X' of shape [4294967296, 4294967296, 4294967296] has" $(compile huge_product x86 llvm)
printf 'op huge_matmul(A: f32[1048576, 65536], B: f32[65536, 1048576]) -> C {\n  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..65536) }\n}\n' >huge_matmul.tex
check huge_matmul ok $(compile huge_matmul x86 llvm)

# ---- nesting: the limit is 256 levels, counted the same for every kind of level
nest() {  # NAME COUNT OPEN CLOSE: Y[i] = X[i] + OPEN^COUNT 1.0 CLOSE^COUNT
  local open="" close="" k
  for ((k = 0; k < $2; k++)); do open+=$3; close+=$4; done
  printf 'op %s(X: f32[8]) -> Y {\n  compute { Y[i] = X[i] + %s1.0%s }\n}\n' "$1" "$open" "$close" >"$1.tex"
}
nest parens256 256 '(' ')'
check parens256 ok $(compile parens256)
nest parens257 257 '(' ')'
check parens257 "error:more than 256 levels" $(compile parens257)
nest calls256 256 'abs(' ')'
check calls256 ok $(compile calls256)
nest calls257 257 'abs(' ')'
check calls257 "error:more than 256 levels" $(compile calls257)
nest select256 256 'select(true, ' ', 0.0)'
check select256 ok $(compile select256)
nest select257 257 'select(true, ' ', 0.0)'
check select257 "error:more than 256 levels" $(compile select257)
nest negate256 256 '- ' ''
check negate256 ok $(compile negate256)
nest negate257 257 '- ' ''
check negate257 "error:more than 256 levels" $(compile negate257)
nest mixed256 128 '-(' ')'
check mixed256 ok $(compile mixed256)
nest mixed258 129 '-(' ')'
check mixed258 "error:more than 256 levels" $(compile mixed258)
nest parens100k 100000 '(' ')'
check parens100k "error:more than 256 levels" $(compile parens100k)

# ---- operator chains do not nest, up to 4096 operators in one chain
sum_chain() {  # NAME TERMS
  local terms="X[i]" k
  for ((k = 1; k < $2; k++)); do terms+=" + X[i]"; done
  printf 'op %s(X: f32[8]) -> Y {\n  compute { Y[i] = %s }\n}\n' "$1" "$terms" >"$1.tex"
}
sum_chain sum300 300
check sum300 ok run sum300.tex --target interp --repeat 1
sum_chain sum4097 4097
check sum4097 ok $(compile sum4097 x86 llvm)
check sum4097_run ok run sum4097.tex --target interp --repeat 1
sum_chain sum4098 4098
check sum4098 "error:more than 4096 operators" $(compile sum4098)
sum_chain sum200k 200000
check sum200k "error:more than 4096 operators" $(compile sum200k)

# ---- schedule `if`: nested blocks and `else if` chains count as nesting
else_ifs() {  # NAME LINKS
  {
    echo "op $1(X: f32[64]) -> Y {"
    echo "  compute { Y[i] = X[i] + 1.0 }"
    echo "  schedule cpu {"
    echo "    knob T in [1, 2]"
    printf '    if T == 0 { }'
    for ((k = 1; k < $2; k++)); do printf ' else if T == %d { }' "$k"; done
    echo " else { vectorize(Y.i) }"
    echo "  }"
    echo "}"
  } >"$1.tex"
}
else_ifs elseif200 200
check elseif200 ok $(compile elseif200)
else_ifs elseif20k 20000
check elseif20k "error:more than 256 levels" $(compile elseif20k)
{
  echo "op nested_if(X: f32[64]) -> Y {"
  echo "  compute { Y[i] = X[i] + 1.0 }"
  echo "  schedule cpu {"
  printf '    '
  for ((k = 0; k < 20000; k++)); do printf 'if true { '; done
  for ((k = 0; k < 20000; k++)); do printf '} '; done
  echo
  echo "  }"
  echo "}"
} >nested_if.tex
check nested_if "error:more than 256 levels" $(compile nested_if)

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
