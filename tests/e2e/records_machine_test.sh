#!/usr/bin/env bash
# Records know their machine (issue 27): `texc tune` writes the machine a record was measured on
# (model name, triple, LLVM CPU, the schedule-relevant features); --records takes a record of this
# machine, else of a CPU with the same features (a note says which), and leaves out the records of
# other machines (the defaults, with a note naming them) unless --records-any-machine (a warning).
# Without --records, the records shipped in STDLIB/records/x86.jsonl give knobs to an op of their
# shapes and template, under any op name, on their machine kind only; --no-records turns them off.
# Runs on any x86 host: the machines are LLVM CPUs (--mcpu), all of which this host can run.
# usage: records_machine_test.sh TEXC REPO_ROOT
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
tmp=${KEEP_TMP:-$(mktemp -d)}
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect() {  # WHAT PATTERN FILE
  grep -q -- "$2" "$3" || { fail "$1: no '$2' in:"; sed 's/^/    /' "$3"; }
}
export TEXC_STDLIB="$root/stdlib"
cat >"$tmp/mm.tex" <<'TEX'
import linalg.matmul
op tuned(A: f32[48, 40], B: f32[40, 72]) -> C {
  compute {
    C = matmul(A, B)
  }
}
TEX
# 1. A tuned record names its machine: x86-64-v3 has AVX2 and FMA, not AVX-512.
if ! "$texc" tune "$tmp/mm.tex" --target x86 --mcpu x86-64-v3 --trials 4 --records "$tmp/r.jsonl" --seed 3 \
     >"$tmp/tune.out" 2>&1; then
  fail "texc tune"; sed 's/^/    /' "$tmp/tune.out"
fi
python3 - "$tmp/r.jsonl" <<'PY' || failures=$((failures + 1))
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in rs if r["machine"]["cpu"] != "x86-64-v3" or "avx2" not in r["machine"]["features"]
       or "fma" not in r["machine"]["features"] or "avx512f" in r["machine"]["features"]
       or not r["machine"]["triple"].startswith("x86_64")]
if not rs or bad:
    print("FAIL: records without the machine x86-64-v3 (avx2 fma, no avx512f):", bad[:1] or "no records")
    sys.exit(1)
PY
compile() {  # OUTPUT_STEM ARGS...
  local stem=$1
  shift
  "$texc" "$tmp/mm.tex" --target x86 --emit loops -o "$tmp/$stem.loops.txt" "$@" >"$tmp/$stem.out" 2>&1
  echo $? >"$tmp/$stem.rc"
}
# 2. The same machine, a CPU with the same features, another machine, and the user's override.
compile same --mcpu x86-64-v3 --records "$tmp/r.jsonl"
expect "same machine" "measured on this machine (x86-64-v3)" "$tmp/same.out"
compile features --mcpu znver3 --records "$tmp/r.jsonl"
expect "same features" "measured on another CPU with this one's features (x86-64-v3; here znver3" "$tmp/features.out"
compile other --mcpu skylake-avx512 --records "$tmp/r.jsonl"
expect "another machine" "no valid record for op 'tuned' on x86 measured on this machine or one with its features" "$tmp/other.out"
expect "another machine" "left out: [0-9]* records\? measured on x86-64-v3 (avx avx2 f16c fma sse4.2)" "$tmp/other.out"
expect "another machine" "default knobs" "$tmp/other.out"
compile any --mcpu skylake-avx512 --records "$tmp/r.jsonl" --records-any-machine
expect "--records-any-machine" "warning: op 'tuned': knobs .* measured on another machine, x86-64-v3" "$tmp/any.out"
# The defaults and the other machine's run give the same loops; the record's differ from them.
compile defaults --mcpu skylake-avx512 --no-records
cmp -s "$tmp/other.loops.txt" "$tmp/defaults.loops.txt" || fail "another machine's records changed the loops"
knobs_of() { grep -o "knobs [^(]* from" "$1"; }
[ -n "$(knobs_of "$tmp/same.out")" ] && [ "$(knobs_of "$tmp/same.out")" = "$(knobs_of "$tmp/any.out")" ] ||
  fail "--records-any-machine took other knobs than this machine's run"

# 3. Shipped records: a stdlib whose records/x86.jsonl holds them under the benchmark's op name.
cp -r "$root/stdlib" "$tmp/stdlib"
mkdir -p "$tmp/stdlib/records"
sed 's/"op": "tuned"/"op": "G0"/' "$tmp/r.jsonl" >"$tmp/stdlib/records/x86.jsonl"
export TEXC_STDLIB="$tmp/stdlib"
sed 's/op tuned/op mine/' "$tmp/mm.tex" >"$tmp/mine.tex"
"$texc" "$tmp/mine.tex" --target x86 --mcpu x86-64-v3 --emit loops -o "$tmp/shipped.loops.txt" >"$tmp/shipped.out" 2>&1 ||
  fail "compile with shipped records"
expect "shipped records" "op 'mine': knobs .* from the best record of op 'G0' (the same schedule template) of the same shapes, measured on this machine (x86-64-v3) in the records shipped with texc" "$tmp/shipped.out"
expect "shipped records" "--no-records for the defaults" "$tmp/shipped.out"
"$texc" run "$tmp/mine.tex" --target x86 --mcpu x86-64-v3 --repeat 1 >"$tmp/run.out" 2>&1 ||
  { fail "texc run with shipped records"; sed 's/^/    /' "$tmp/run.out"; }
for case in "--mcpu skylake-avx512" "--mcpu x86-64-v3 --no-records"; do
  # shellcheck disable=SC2086
  "$texc" "$tmp/mine.tex" --target x86 $case --emit loops -o "$tmp/quiet.loops.txt" >"$tmp/quiet.out" 2>&1 || fail "compile $case"
  [ -s "$tmp/quiet.out" ] && { fail "$case: the shipped records said something:"; sed 's/^/    /' "$tmp/quiet.out"; }
done
sed 's/f32\[48, 40\]/f32[50, 40]/; s/C = matmul/C = matmul/' "$tmp/mine.tex" >"$tmp/other_shape.tex"
"$texc" "$tmp/other_shape.tex" --target x86 --mcpu x86-64-v3 --emit loops -o "$tmp/q.loops.txt" >"$tmp/q.out" 2>&1 || fail "compile 50x40"
[ -s "$tmp/q.out" ] && { fail "shipped records applied to other shapes:"; sed 's/^/    /' "$tmp/q.out"; }

# 4. Misuse: exit 1 with a message.
for args in "--no-records --records $tmp/r.jsonl" "--records-any-machine"; do
  # shellcheck disable=SC2086
  "$texc" "$tmp/mine.tex" --target x86 $args -o "$tmp/x" >"$tmp/err.out" 2>&1
  rc=$?
  [ $rc = 1 ] || fail "texc $args: exit $rc, not 1"
  grep -q "records" "$tmp/err.out" || fail "texc $args: no message about records"
done
[ $failures = 0 ] && echo "ok: records name their machine; --records and the shipped records take only this machine's kind"
exit $((failures > 0))
