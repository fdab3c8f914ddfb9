#!/usr/bin/env bash
# One FLOP count everywhere: an op that x86 compiles through a `compute cpu` implementation
# (nn.conv2d -> conv2d_blocked, which also re-lays out its input and weights) reports the same
# MFLOP (GFLOP/s x ms) in `texc run --json` and in the records `texc tune` writes — the count of
# the op's definition, whatever implementation is measured.
# usage: flops_test.sh TEXC CONV2D_VARIANT.tex
set -u
texc=$1
tex=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$texc" tune "$tex" --target x86 --trials 2 --records "$work/r.jsonl" --seed 1 >"$work/tune.out" 2>"$work/tune.err" ||
  { echo "FAIL: texc tune exited $?"; cat "$work/tune.out" "$work/tune.err"; exit 1; }
"$texc" run "$tex" --target x86 --json --repeat 2 >"$work/run.out" 2>"$work/run.err" ||
  { echo "FAIL: texc run exited $?"; cat "$work/run.out" "$work/run.err"; exit 1; }
"$texc" run "$tex" --target interp --json >"$work/interp.out" 2>"$work/interp.err" ||
  { echo "FAIL: texc run --target interp exited $?"; cat "$work/interp.out" "$work/interp.err"; exit 1; }
python3 - "$work/r.jsonl" "$work/run.out" "$work/interp.out" <<'PY'
import json, sys
def mflop(r):
    return r["gflops"] * r["median_ms"]  # GFLOP/s x ms = MFLOP
records = [json.loads(l) for l in open(sys.argv[1])]
runs = {r["op"]: r for r in map(json.loads, open(sys.argv[2]).read().splitlines())}
interps = {r["op"]: r for r in map(json.loads, open(sys.argv[3]).read().splitlines())}
assert sorted(runs) == sorted(interps) == ["conv_const", "conv_small"], (runs, interps)
failed = False
for op in sorted(runs):
    run, interp = runs[op], interps[op]
    assert run["status"] == "pass" and interp["status"] == "pass", (run, interp)
    ok = [r for r in records if r["op"] == op and r["status"] == "ok"]
    assert ok, f"no measured record of {op}: {records}"
    want = mflop(interp)  # interp runs the definition itself
    figures = [("texc run --target x86", mflop(run))] + [(f"record of trial {r['trial']}", mflop(r)) for r in ok]
    for what, got in figures:
        good = abs(got - want) <= 1e-3 * want
        print(f"{'ok' if good else 'FAIL'}: {op}: {what}: {got:.4f} MFLOP (the definition: {want:.4f})")
        failed = failed or not good
sys.exit(1 if failed else 0)
PY
