#!/usr/bin/env bash
# `texc run --target vdla` reports the simulated time — the simulator's cycles at the nominal clock
# (100 MHz, tuner/VdlaRunner.h), as `texc tune` records it — labelled "simulated", and the time the
# simulator took on the host apart: two configurations that take different cycles report different
# times and GFLOP/s (the host's wall time made them all alike).
# usage: vdla_time_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
export TEXC_STDLIB="$root/stdlib"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
dense=$root/tests/vdla/dense_int8.tex

echo '{"dram_bytes_per_cycle": 16}' >"$work/fast.json"
"$texc" run "$dense" --target vdla --json >"$work/default.json" || fail "run (default configuration)"
"$texc" run "$dense" --target vdla --json --vdla-config "$work/fast.json" >"$work/fast.out" || fail "run (fast DRAM)"
python3 - "$work/default.json" "$work/fast.out" <<'PY' || fail "the JSON times are not the simulated ones"
import json, sys
runs = [json.loads(open(p).read().splitlines()[-1]) for p in sys.argv[1:]]
for r in runs:
    assert r["timing"] == "simulated (cycles at a nominal 100 MHz clock)", r
    assert r["cycles"] > 0 and r["host_ms"] > 0, r
    # cycles / 100 MHz in ms, to the JSON's 6 significant digits
    assert abs(r["median_ms"] - r["cycles"] / 1e5) <= 1e-5 * r["median_ms"], r
default, fast = runs
assert fast["cycles"] < default["cycles"], (fast, default)
assert fast["median_ms"] < default["median_ms"] and fast["gflops"] > default["gflops"], (fast, default)
print(f"ok: {default['cycles']} cycles -> {default['median_ms']} ms, {fast['cycles']} -> {fast['median_ms']} ms (host {default['host_ms']}, {fast['host_ms']} ms)")
PY
out=$("$texc" run "$dense" --target vdla)
echo "$out" | grep -qE '^dense_int8_vdla_small +vdla +PASS .* ms \(simulated\) ' || fail "the table line's time is not labelled simulated: $out"
echo "$out" | grep -qE '^  vdla: [0-9]+ cycles = [0-9.e+-]+ ms simulated at a nominal 100 MHz clock \(the simulator took [0-9.e+-]+ ms of host wall time\)' ||
  fail "the stats line does not give the simulated and the host time apart: $out"
[ $failures -eq 0 ] && echo "vdla time: all passed"
[ $failures -eq 0 ]
