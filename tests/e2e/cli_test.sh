#!/usr/bin/env bash
# Checks the texc command line (docs/cli.md) on the interp target: exit codes (0 success,
# 1 user error or failed check, 2 missing target/tool), messages of bad command lines, --json,
# --save-io / --inputs round trips (and partial --inputs), a wrong input file, --emit loops, --op
# suggestions, files without ops, skipped helper ops, --input-range (and the warning when the
# reference is mostly NaN), and --knob.
# usage: cli_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
op=$root/tests/e2e/corpus/ew_add.tex
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

expect 0 '^texc [0-9]+\.[0-9]+' -- --version
expect 0 'texc run  FILE.tex \[--target T\]' -- --help
expect 1 'no input file' --
expect 1 "unknown target 'gpu'" -- run "$op" --target gpu
# --help lists every target the error for an unknown one names (both from ir/Target.h's table).
targets=$("$texc" run "$op" --target gpu 2>&1 | sed -n "s/.*unknown target 'gpu' (expected host, \(.*\))/\1/p" | tr -d ',')
[ -n "$targets" ] || { echo "FAIL: the unknown-target message lists no targets"; failures=$((failures + 1)); }
for t in $targets; do
  "$texc" --help | grep -qE "^  $t +[^ ]" || { echo "FAIL: --help does not list target '$t'"; failures=$((failures + 1)); }
done
expect 1 "unknown option '--frobnicate'" -- run "$op" --target interp --frobnicate
expect 1 "-D needs NAME=VALUE, not 'M'" -- run "$op" --target interp -D M
expect 1 "--repeat must be at least 1" -- run "$op" --target interp --repeat 0
expect 1 "--emit: unknown output kind 'exe'" -- "$op" --target interp --emit exe
expect 1 "there is no param, attribute or dimension variable named 'Q'" -- run "$op" --target interp -D Q=3
expect 1 "cannot open file" -- run "$work/missing.tex" --target interp
# An output in a folder that does not exist: the reason, exit 2 (a file that cannot be written).
expect 2 "cannot write '$work/no-such-folder/ew.o': No such file or directory" -- "$op" --target x86 -o "$work/no-such-folder/ew"
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then  # where a driver is installed the op runs
  expect 2 "no CUDA device" -- run "$op" --target cuda
  expect 2 "no CUDA device" -- run "$op" --target cuda --arch sm_90
fi
expect 1 "unknown --arch 'sm_100' \(expected one of sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90; default sm_80\)" \
  -- run "$op" --target cuda --arch sm_100
expect 1 "--arch chooses the GPU architecture of --target cuda or cuda-interp, not of 'x86' \(for CPUs: --mcpu\)" \
  -- run "$op" --target x86 --arch sm_80
expect 1 "'ew_add' cannot run on VDLA: its tensor 'A' is f32, and VDLA computes in integers only" -- run "$op" --target vdla
expect 0 "1 trials \(0 resumed, 1 new, 0 failed\), space exhausted" -- tune "$op" --target x86 --trials 2 --records "$work/r.jsonl"

expect 0 '^ew_add +interp +PASS +max_rel_err 0.00e\+00 .* 1536 points checked \(all\)' -- run "$op" --target interp
expect 0 '^\{"op": "ew_add", "target": "interp", "status": "pass", "max_rel_err": 0, "median_ms": [0-9.e+-]+, "gflops": [0-9.e+-]+, "threads": 1' \
  -- run "$op" --target interp --json --repeat 3 -DM=8
expect 0 'PASS' -- run "$op" --target interp -D M=8 --save-io "$work/io" --seed 5
for t in A B C; do
  [ -f "$work/io/ew_add.$t.npy" ] || { echo "FAIL: --save-io did not write ew_add.$t.npy"; failures=$((failures + 1)); }
done
expect 0 'PASS' -- run "$op" --target interp -D M=8 --inputs "$work/io" --save-io "$work/io2"
cmp -s "$work/io/ew_add.C.npy" "$work/io2/ew_add.C.npy" ||
  { echo "FAIL: the same inputs gave a different output"; failures=$((failures + 1)); }
expect 1 "input 'A' of op 'ew_add' must be f32\[32, 48\] \(dtype '<f4'\), but '.*ew_add.A.npy' holds f32\[8, 48\]" \
  -- run "$op" --target interp --inputs "$work/io"
expect 0 '' -- "$op" --target interp --emit loops -o "$work/ew"
grep -q 'func ew_add(' "$work/ew.loops.txt" || { echo "FAIL: --emit loops wrote no loops"; failures=$((failures + 1)); }
expect 1 "generates no code" -- "$op" --target interp --emit obj

# --op with a typo: a suggestion.
expect 1 "--op ew_ad: the file defines no op named 'ew_ad'; did you mean 'ew_add'\?" -- run "$op" --target interp --op ew_ad
# A file without ops says so.
printf 'param N = 4\n' >"$work/no_ops.tex"
expect 1 "no_ops.tex' defines no op, so there is nothing to compile or run" -- run "$work/no_ops.tex" --target interp
expect 1 "no_ops.tex' defines no op" -- "$work/no_ops.tex" --target interp

# A helper op whose dimension only its callers bind is skipped (with a note); the others run.
printf '%s\n' 'op scale(X: f32[N]) -> Y {' '  compute { Y[i] = X[i] * 2.0 }' '}' \
  'op scale_plus_one(A: f32[64]) -> B {' '  compute {' '    S = scale(A)' '    B[i] = S[i] + 1.0' '  }' '}' \
  >"$work/helper.tex"
expect 0 "helper.tex:1:17: note: skipped op 'scale': dimension 'N' of entry op 'scale' is unknown" \
  -- run "$work/helper.tex" --target interp
expect 0 '^scale_plus_one +interp +PASS' -- run "$work/helper.tex" --target interp
expect 0 "^scale +interp +PASS" -- run "$work/helper.tex" --target interp -D N=8
expect 1 "helper.tex:1:17: error: dimension 'N' of entry op 'scale' is unknown" \
  -- run "$work/helper.tex" --target interp --op scale
expect 0 "note: skipped op 'scale'" -- "$work/helper.tex" --target interp -o "$work/helper"
grep -q 'func scale_plus_one(' "$work/helper.loops.txt" ||
  { echo "FAIL: helper.tex: scale_plus_one not compiled"; failures=$((failures + 1)); }

# --inputs may give some of the inputs: the others are random (seeded), with a note.
rm -f "$work/io/ew_add.B.npy"
expect 0 "note: --inputs .* has no ew_add.B.npy; input 'B' of op 'ew_add' is random \(seed 6\)" \
  -- run "$op" --target interp -D M=8 --inputs "$work/io" --seed 6 --save-io "$work/io3"
cmp -s "$work/io/ew_add.A.npy" "$work/io3/ew_add.A.npy" || { echo "FAIL: --inputs: A was not read"; failures=$((failures + 1)); }
cmp -s "$work/io2/ew_add.B.npy" "$work/io3/ew_add.B.npy" && { echo "FAIL: --inputs: B was not random"; failures=$((failures + 1)); }
expect 1 "--inputs .*/nowhere: no such directory" -- run "$op" --target interp --inputs "$work/nowhere"

# --input-range [NAME=]LO,HI: the random values of that input (or of every input) lie in [LO, HI];
# a reference that is NaN at most checked points gets a warning (the check then says little).
printf '%s\n' 'op root(X: f32[64], Y: f32[64]) -> R {' '  compute { R[i] = sqrt(X[i]) + Y[i] }' '}' >"$work/root.tex"
expect 0 "^root +interp +PASS .* 64 points checked \(all\), [0-9]+ NaN/inf in the reference" -- run "$work/root.tex" --target interp
printf '%s\n' 'op root2(X: f32[64]) -> R {' '  compute { R[i] = sqrt(X[i] - 0.5) }' '}' >"$work/root2.tex"
expect 0 "warning: [0-9]+ of the 64 checked points of op 'root2' are NaN or infinite in the reference too.*--input-range" \
  -- run "$work/root2.tex" --target interp
expect 0 '^root +interp +PASS .* 64 points checked \(all\)$' -- run "$work/root.tex" --target interp --input-range X=0.5,4 \
  --save-io "$work/io_range"
python3 - "$work/io_range" <<'PY' || failures=$((failures + 1))
import struct, sys
def load(path):
    b = open(path, 'rb').read(); n = struct.unpack('<H', b[8:10])[0]; d = b[10 + n:]
    return struct.unpack('<%df' % (len(d) // 4), d)
x, y = load(sys.argv[1] + '/root.X.npy'), load(sys.argv[1] + '/root.Y.npy')
if not (all(0.5 <= v <= 4 for v in x) and min(y) < 0):
    sys.exit('FAIL: --input-range X=0.5,4: X spans [%g, %g], Y [%g, %g]' % (min(x), max(x), min(y), max(y)))
PY
expect 0 '"nonfinite_expected": 0,' -- run "$work/root.tex" --target interp --input-range 1,2 --json
expect 1 "--input-range Z=...: no op run has an input named 'Z' \(inputs: X, Y\)" -- run "$work/root.tex" --target interp --input-range Z=0,1
expect 1 "--input-range X=2,1: LO is larger than HI" -- run "$work/root.tex" --target interp --input-range X=2,1
expect 1 "--input-range needs \[NAME=\]LO,HI with two numbers, not 'X=1'" -- run "$work/root.tex" --target interp --input-range X=1
printf '%s\n' 'op iadd(A: i32[8], B: i32[8]) -> C {' '  compute { C[i] = A[i] + B[i] }' '}' >"$work/iadd.tex"
expect 1 "--input-range A=0.2,0.7: input 'A' of op 'iadd' is i32, which holds no value in that range" \
  -- run "$work/iadd.tex" --target interp --input-range A=0.2,0.7
expect 0 '^iadd +interp +PASS' -- run "$work/iadd.tex" --target interp --input-range A=-3.5,1e12
expect 0 '^iadd +interp +PASS' -- run "$work/iadd.tex" --target interp --input-range 0.2,0.7 --input-range A=1,3 --input-range B=-2,2

# --knob NAME=VALUE: the knob's value is used; unknown knobs and values are errors. factors(512)
# defaults to 32 (jo: 512 / 32 = 16 iterations).
knobs=$root/examples/04_knobs.tex
expect 0 '' -- "$knobs" --target interp -o "$work/k_default"
grep -qE 'jo in 0\.\.16 ' "$work/k_default.loops.txt" ||
  { echo "FAIL: factors(512) did not default to 32"; failures=$((failures + 1)); }
expect 0 '' -- "$knobs" --target interp --knob TI=64 --knob TJ=128 --knob UK=false -o "$work/k_set"
grep -qE 'io in 0\.\.8 ' "$work/k_set.loops.txt" && grep -qE 'jo in 0\.\.4 ' "$work/k_set.loops.txt" ||
  { echo "FAIL: --knob TI=64 --knob TJ=128 not applied"; failures=$((failures + 1)); }
expect 0 '^matmul_tuned +interp +PASS' -- run "$knobs" --target interp -D M=16 -D N=24 -D K=8 --knob TJ=6 --knob UK=false
expect 1 "04_knobs.tex:17:10: error: --knob TI=7: knob 'TI' takes one of 8, 16, 32, 64" \
  -- "$knobs" --target interp --knob TI=7
expect 1 "04_knobs.tex:19:10: error: --knob UK=2: knob 'UK' takes true or false \(or 1 or 0\)" -- run "$knobs" --target interp --knob UK=2
# A bool knob also takes 1 and 0, as records store it.
expect 0 '' -- "$knobs" --target interp --knob UK=0 -o "$work/k_uk0"
expect 0 '' -- "$knobs" --target interp --knob UK=false -o "$work/k_ukfalse"
cmp -s "$work/k_uk0.loops.txt" "$work/k_ukfalse.loops.txt" || { echo "FAIL: --knob UK=0 differs from UK=false"; failures=$((failures + 1)); }
expect 1 "--knob TJJ: no schedule for target 'interp' declares a knob named 'TJJ'; did you mean 'TJ'\? \(the knobs are matmul_tuned: TI, TJ, UK\)" \
  -- run "$knobs" --target interp --knob TJJ=8
expect 1 "--knob TI: no schedule for target 'interp' declares a knob named 'TI' \(its schedules for this target declare no knobs\)" \
  -- run "$op" --target interp --knob TI=8
expect 1 "--knob needs NAME=VALUE, not 'TI'" -- run "$knobs" --target interp --knob TI

# A user's own module: found next to the importing file, then in -I dirs, before the stdlib.
mkdir -p "$work/proj/mylib" "$work/elsewhere/shared"
cat >"$work/proj/mylib/ops.tex" <<'TEX'
op twice(X: f32[N]) -> Y {
  compute {
    Y[i] = X[i] * 2.0
  }
}
TEX
cat >"$work/elsewhere/shared/thrice.tex" <<'TEX'
op thrice(X: f32[N]) -> Y {
  compute {
    Y[i] = X[i] * 3.0
  }
}
TEX
cat >"$work/proj/main.tex" <<'TEX'
import mylib.ops
import shared.thrice

op use(A: f32[16]) -> B {
  compute {
    T = twice(A)
    B = thrice(T)
  }
}
TEX
expect 0 '^use +interp +PASS' -- run "$work/proj/main.tex" --target interp -I "$work/elsewhere"
expect 1 "main.tex:2:8: error: cannot find import 'shared.thrice' \(searched: $work/proj/shared/thrice.tex, .*stdlib/shared/thrice.tex\)" \
  -- run "$work/proj/main.tex" --target interp

# TVM's spelling compute_inline(T) is inline(T): the same loops.
for spelling in inline compute_inline; do
  cat >"$work/$spelling.tex" <<TEX
op f(X: f32[8]) -> Y {
  compute {
    T[i] = X[i] + 1.0
    Y[i] = T[i] * 2.0
  }
  schedule cpu {
    $spelling(T)
  }
}
TEX
  expect 0 '' -- "$work/$spelling.tex" --target interp -o "$work/$spelling"
done
cmp -s "$work/inline.loops.txt" "$work/compute_inline.loops.txt" ||
  { echo "FAIL: compute_inline(T) gave other loops than inline(T)"; failures=$((failures + 1)); }

echo "$failures failed"
[ "$failures" -eq 0 ]
