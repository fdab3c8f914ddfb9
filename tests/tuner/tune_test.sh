#!/usr/bin/env bash
# `texc tune` end to end on small_matmul.tex (x86, a few trials each): records written as each
# measurement completes and readable; invalid configurations recorded without a time; the best
# record picked by `texc run --records` (and by compile, and for a nearby shape); resume; a SIGKILL
# mid-run loses no completed measurement and repeats none; another CPU's records used by run only
# with --records-any-machine (warned), and not resumed; injected crashing and hanging
# candidates recorded with their reason while the run goes on; every --tuner; --transfer; --curve.
# usage: tune_test.sh TEXC SMALL_MATMUL.tex
set -u
texc=$1
tex=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failures=$((failures + 1)); }
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
lines() { wc -l < "$1" | tr -d ' '; }

# validate FILE: every line a record with the fields; statuses known; times exactly on "ok";
# "invalid" only for P=2 with the schedule's message; no configuration twice. Prints the best
# valid record's knobs as texc describes them ("TI=16 TJ=32 UK=true P=1").
validate() {
  python3 - "$1" <<'PY'
import json, sys
seen, best = set(), None
for n, line in enumerate(open(sys.argv[1]), 1):
    r = json.loads(line)
    for f in ("op", "target", "device", "shapes", "knobs", "status", "median_ms", "spread", "gflops",
              "message", "texc_version", "time", "features"):
        assert f in r, f"line {n}: no {f}"
    assert r["status"] in ("ok", "invalid", "wrong", "crash", "timeout", "error"), r["status"]
    key = tuple(sorted(r["knobs"].items()))
    assert key not in seen, f"line {n}: {key} measured twice"
    seen.add(key)
    if r["status"] == "ok":
        assert r["median_ms"] > 0 and r["gflops"] > 0 and r["repeats"] >= 1, f"line {n}"
        if best is None or r["median_ms"] < best["median_ms"]:
            best = r
    else:
        assert r["median_ms"] == 0, f"line {n}: a failed candidate has a time"
    if r["status"] == "invalid":
        assert r["knobs"]["P"] == 2 and "cannot parallelize" in r["message"], f"line {n}"
assert best is not None, "no valid record"
k = best["knobs"]
print(f"TI={k['TI']} TJ={k['TJ']} UK={'true' if k['UK'] else 'false'} P={k['P']}")
PY
}

R=$work/r.jsonl
"$texc" tune "$tex" --target x86 --trials 20 --records "$R" --seed 1 --curve "$work/c.svg" >"$work/out" 2>"$work/err"
check "tune exits 0" test $? -eq 0
check "20 records" test "$(lines "$R")" -eq 20
check "a progress line per batch, plain when not a terminal" grep -q "^tune mm: 20/20 trials  best .* GFLOP/s  [0-9]* failed" "$work/err"
check "the summary line" grep -q "^mm .* x86 .* best .* GFLOP/s .* 20 trials (0 resumed, 20 new" "$work/out"
best=$(validate "$R") && ok "records valid: $best" || { bad "records invalid"; cat "$R" | head -3; }
check "the curve is an SVG with a line" grep -q "<polyline" "$work/c.svg"

# --records on run: the best record of the same shapes, said so; compile takes it too.
"$texc" run "$tex" --target x86 --records "$R" >"$work/out" 2>"$work/err"
check "run --records passes" test $? -eq 0
check "run --records uses the best record ($best)" grep -q "knobs $best from the best record of the same shapes" "$work/err"
"$texc" "$tex" --target x86 --records "$R" --emit loops -o - >"$work/out" 2>"$work/err"
check "compile --records uses the best record" grep -q "knobs $best from the best record of the same shapes" "$work/err"
"$texc" run "$tex" --target x86 -D M=48 --records "$R" >"$work/out" 2>"$work/err"
check "another M: the nearest shapes' record" grep -q "from the best record of the nearest shapes, A\[64, 64\]" "$work/err"
"$texc" run "$tex" --target interp --records "$R" >"$work/out" 2>"$work/err"
check "another target: defaults, said so" grep -q "no valid record for op 'mm' on interp: default knobs" "$work/err"

# Resume: the same file with more trials measures only the new ones.
"$texc" tune "$tex" --target x86 --trials 26 --records "$R" --seed 1 >"$work/out" 2>"$work/err"
check "resume: 6 new trials" grep -q "26 trials (20 resumed, 6 new" "$work/out"
check "resume: 26 records" test "$(lines "$R")" -eq 26

# --remeasure 3 on a copy: the 3 best configurations by median measured a second time (records of
# tuner "remeasure", not trials; re-ranked after each, at most 9); the same command again measures
# nothing more (resume); --records then says the chosen configuration's median.
cp "$R" "$work/again.jsonl"
"$texc" tune "$tex" --target x86 --trials 26 --records "$work/again.jsonl" --seed 1 --remeasure 3 >"$work/out" 2>"$work/err"
check "--remeasure: exits 0" test $? -eq 0
again=$(grep -c '"tuner": "remeasure"' "$work/again.jsonl")
check "--remeasure 3: 3 to 9 measurements again ($again)" test "$again" -ge 3 -a "$again" -le 9
check "--remeasure: no trial added" grep -q "26 trials (26 resumed, 0 new, 0 failed), $again measured again" "$work/out"
"$texc" tune "$tex" --target x86 --trials 26 --records "$work/again.jsonl" --seed 1 --remeasure 3 >"$work/out" 2>"$work/err"
check "--remeasure again: nothing new" test "$(grep -c '"tuner": "remeasure"' "$work/again.jsonl")" -eq "$again"
"$texc" run "$tex" --target x86 --records "$work/again.jsonl" >/dev/null 2>"$work/err"
check "run --records: the median of 2 measurements" grep -q "the median of 2 measurements" "$work/err"
validate "$R" >/dev/null && ok "resume: nothing measured twice" || bad "resume: records invalid"

# SIGKILL mid-run, then the same command: nothing completed is lost, nothing repeated.
"$texc" tune "$tex" --target x86 --trials 40 --records "$R" --seed 1 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ "$(lines "$R")" -ge 31 ] && break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
cp "$R" "$work/killed.jsonl"
killed=$(lines "$R")
check "killed mid-run after $killed records" test "$killed" -lt 40
"$texc" tune "$tex" --target x86 --trials 40 --records "$R" --seed 1 >"$work/out" 2>"$work/err"
check "after the kill: 40 records in all" grep -q "40 trials (${killed} resumed" "$work/out"
check "after the kill: the records before it kept as they were" cmp -s "$work/killed.jsonl" <(head -n "$killed" "$R")
validate "$R" >/dev/null && ok "after the kill: nothing measured twice" || bad "after the kill: records invalid"

# Nothing left to do: --json says so; --early-stopping ends a run that stopped improving.
"$texc" tune "$tex" --target x86 --trials 40 --records "$R" --json >"$work/out" 2>/dev/null
check "--json: one object, 40 resumed, none new" grep -q '^{"op": "mm", "target": "x86", "trials": 40, "resumed": 40, "new": 0, .*"best_knobs": {"TI": ' "$work/out"
# Records of another CPU (other features): left out by run (said so) unless --records-any-machine
# (warned); not resumed by tune (they teach the model); once this CPU has records, run takes those.
sed -e 's/"device": "x86 \/ [^"]*"/"device": "x86 \/ Some Other CPU (skylake)"/' \
    -e 's/"machine": {[^}]*}/"machine": {"name": "Some Other CPU", "triple": "x86_64-pc-linux-gnu", "cpu": "skylake", "features": ["avx", "avx2"]}/' \
    "$R" >"$work/other.jsonl"
"$texc" run "$tex" --target x86 --records "$work/other.jsonl" >"$work/out" 2>"$work/err"
check "another CPU's records: left out, said so" grep -q "left out: [0-9]* records measured on skylake (avx avx2); --records-any-machine uses them): default knobs" "$work/err"
"$texc" run "$tex" --target x86 --records "$work/other.jsonl" --records-any-machine >"$work/out" 2>"$work/err"
check "another CPU's records: used with --records-any-machine, warned" grep -q "warning: op 'mm': knobs .* measured on another machine, skylake (avx avx2)" "$work/err"
"$texc" tune "$tex" --target x86 --trials 5 --records "$work/other.jsonl" >"$work/out" 2>"$work/err"
check "another CPU's records: not resumed" grep -q "5 trials (0 resumed, 5 new" "$work/out"
check "another CPU's records: 45 in all" test "$(lines "$work/other.jsonl")" -eq 45
"$texc" run "$tex" --target x86 --records "$work/other.jsonl" >"$work/out" 2>"$work/err"
check "this CPU's records first" grep -q "from the best record of the same shapes, measured on this machine" "$work/err"
# The first batch: the schedule's defaults (so no record picks a configuration slower than them),
# then, with another machine's records of this workload (--transfer), its fastest configurations.
grep '"device": "x86 / Some Other CPU' "$work/other.jsonl" >"$work/foreign.jsonl"
"$texc" tune "$tex" --target x86 --trials 4 --records "$work/prior.jsonl" --transfer "$work/foreign.jsonl" >/dev/null 2>&1
check "the first batch: the defaults, then the other machine's fastest configurations" python3 - "$work/foreign.jsonl" "$work/prior.jsonl" <<'PY'
import json, sys
def load(p): return [json.loads(l) for l in open(p) if l.strip()]
fastest = []
for r in sorted((r for r in load(sys.argv[1]) if r["status"] == "ok"), key=lambda r: -r["gflops"]):
    if r["knobs"] not in fastest:
        fastest.append(r["knobs"])
first = [r["knobs"] for r in sorted(load(sys.argv[2]), key=lambda r: r["trial"])]
expected = [k for k in fastest if k != first[0]][:3]
sys.exit(0 if len(first) == 4 and first[1:] == expected else 1)
PY
python3 -c "
import json, sys
r = min((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r['trial'])
print(json.dumps(r))" "$work/prior.jsonl" >"$work/first.jsonl"
"$texc" "$tex" --target x86 --emit loops -o "$work/defaults.loops.txt" >/dev/null 2>&1
"$texc" "$tex" --target x86 --emit loops --records "$work/first.jsonl" -o "$work/first.loops.txt" >/dev/null 2>&1
check "the first trial is the defaults" cmp -s "$work/defaults.loops.txt" "$work/first.loops.txt"
"$texc" tune "$tex" --target x86 --trials 30 --records "$work/early.jsonl" --tuner grid --early-stopping 3 >"$work/out" 2>/dev/null
check "--early-stopping 3: stopped early" grep -q "stopped early" "$work/out"
check "--early-stopping 3: fewer than 30 records" test "$(lines "$work/early.jsonl")" -lt 30

# Injected faults: TI=8 crashes (SIGSEGV in the child), TI=16 hangs (killed at --timeout); the run goes on.
R2=$work/faults.jsonl
TEXC_TUNE_TEST_FAULT="crash@TI=8;hang@TI=16" "$texc" tune "$tex" --target x86 --trials 8 --records "$R2" \
  --tuner grid --timeout 2 >"$work/out" 2>"$work/err"
check "faults: tune exits 0 with 8 records" test $? -eq 0 -a "$(lines "$R2")" -eq 8
check "faults: 4 failed" grep -q "8 trials (0 resumed, 8 new, 4 failed)" "$work/out"
# Every candidate crashes: no valid configuration, exit 1 with a message that says so.
TEXC_TUNE_TEST_FAULT="crash@TI=4;crash@TI=8;crash@TI=16;crash@TI=32" "$texc" tune "$tex" --target x86 --trials 3 \
  --records "$work/none_valid.jsonl" >"$work/out" 2>"$work/err"
check "no valid configuration: exit 1" test $? -eq 1
check "no valid configuration: said so" grep -q "texc: error: no valid configuration of op 'mm' on x86" "$work/err"
check "faults: a crash record with its signal" grep -q '"TI": 8, .*"status": "crash".*SIGSEGV' "$R2"
check "faults: a timeout record" grep -q '"TI": 16, .*"status": "timeout".*killed after 2 s' "$R2"
check "faults: the others measured" test "$(grep -c '"status": "ok"' "$R2")" -eq 4

# The baselines and transfer.
for tuner in random ga grid; do
  "$texc" tune "$tex" --target x86 --trials 8 --records "$work/$tuner.jsonl" --tuner $tuner --seed 2 >"$work/out" 2>&1
  check "--tuner $tuner: 8 records" test $? -eq 0 -a "$(lines "$work/$tuner.jsonl")" -eq 8
done
"$texc" tune "$tex" --target x86 -D M=32 --trials 8 --records "$work/t.jsonl" --transfer "$R" --seed 3 \
  --curve "$work/c2.svg" --curve-with "$work/random.jsonl" >"$work/out" 2>&1
check "--transfer: 8 records of the new shape" test $? -eq 0 -a "$(grep -c '"A": \[32, 64\]' "$work/t.jsonl")" -eq 8
check "--curve-with: two lines" test "$(grep -c '<polyline' "$work/c2.svg")" -eq 2

# The other CPU targets: interp (the loop interpreter) and arm (under qemu: labelled emulated).
small="-D M=16 -D N=16 -D K=16"
"$texc" tune "$tex" $small --target interp --trials 3 --records "$work/i.jsonl" >"$work/out" 2>&1
check "interp: 3 records" test $? -eq 0 -a "$(lines "$work/i.jsonl")" -eq 3
"$texc" tune "$tex" $small --target arm --trials 2 --records "$work/a.jsonl" >"$work/out" 2>&1
rc=$?
if [ $rc -eq 2 ]; then
  echo "skip: arm (no cross compiler, qemu-aarch64 or aarch64 runtime: exit 2)"
else
  check "arm: 2 records" test $rc -eq 0 -a "$(lines "$work/a.jsonl")" -eq 2
  if [ "$(uname -m)" != aarch64 ]; then
    check "arm: the device says the times are emulated" grep -q '"device": "arm / qemu-aarch64 (emulated)"' "$work/a.jsonl"
  fi
fi

# vdla: the simulator's cycles (deterministic: spread 0, the same time twice), tiles that do not fit
# the buffers recorded as invalid without a measurement, the best record used by `texc run`.
vdla_tex="$work/vdla_dense.tex"
cat > "$vdla_tex" <<'TEX'
import nn.int8
op vdla_dense(X: i8[4, 2, 16], W: i8[3, 2, 16, 16]) -> Y {
  compute { Y = dense_int8(X, W, shift = 4) }
}
TEX
vdla_conv="$work/vdla_conv.tex"
cat > "$vdla_conv" <<'TEX'
import nn.int8
op vdla_conv(X: i8[1, 1, 8, 8, 16], W: i8[2, 1, 3, 3, 16, 16]) -> Y {
  compute { Y = conv2d_int8(X, W, shift = 6, stride = 1, pad = 1) }
}
TEX
"$texc" tune "$vdla_conv" --target vdla --trials 8 --records "$work/v.jsonl" --seed 3 >"$work/out" 2>&1
check "vdla: 8 records" test $? -eq 0 -a "$(lines "$work/v.jsonl")" -eq 8
check "vdla: the device names the simulator" grep -q '"device": "vdla / simulator (default configuration' "$work/v.jsonl"
python3 - "$work/v.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in recs if r["status"] == "ok"]
assert ok, "no valid vdla record"
assert all(r["spread"] == 0 and r["min_ms"] == r["max_ms"] for r in ok), "simulated cycles must not vary"
assert all(r["status"] in ("ok", "invalid") for r in recs), [r["message"] for r in recs if r["status"] not in ("ok", "invalid")]
PY
check "vdla: every valid record has spread 0, every other one is invalid" test $? -eq 0
"$texc" run "$vdla_conv" --target vdla --records "$work/v.jsonl" >"$work/out" 2>"$work/err"
check "vdla: run --records uses the best record and passes" grep -q "PASS" "$work/out"
check "vdla: run --records names the record it used" grep -q "v.jsonl" "$work/err"
"$texc" tune "$vdla_tex" --target vdla --trials 2 --records "$work/v2.jsonl" >"$work/out" 2>&1
check "vdla: an op with an empty space is measured once" test $? -eq 0 -a "$(lines "$work/v2.jsonl")" -eq 1

# Mistakes on the command line.
"$texc" tune "$tex" --target x86 --trials 4 --records "$work/x.jsonl" --tuner bogus >/dev/null 2>"$work/err"
check "--tuner bogus: exit 1" test $? -eq 1
"$texc" tune "$tex" --target x86 --trials 4 --records "$work/x.jsonl" --transfer "$work/none.jsonl" >/dev/null 2>"$work/err"
check "--transfer of a missing file: exit 1" test $? -eq 1
"$texc" run "$tex" --target x86 --records "$work/none.jsonl" >/dev/null 2>"$work/err"
check "run --records of a missing file: exit 1" test $? -eq 1

echo "$failures failure(s)"
exit $((failures > 0))
