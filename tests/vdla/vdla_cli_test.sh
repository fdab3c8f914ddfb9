#!/usr/bin/env bash
# The VDLA command line (docs/vdla.md): texc --target vdla writes OUT.vdla and its listing (with
# tokens and the stage each instruction came from), vdla-sim runs the file on its own,
# --vdla-config changes the simulated hardware (a bad key is an error located in the JSON file),
# --trace writes a Trace Event Format timeline with one track per engine.
# usage: vdla_cli_test.sh TEXC VDLA_SIM REPO_ROOT
set -u
texc=$1
sim=$2
root=$3
export TEXC_STDLIB="$root/stdlib"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
dense=$root/tests/vdla/dense_int8.tex

"$texc" "$dense" --target vdla -o "$work/d" || fail "compile"
[ -s "$work/d.vdla" ] || fail "no d.vdla"
grep -q "COMPUTE  GEMM .*gemm Y_AccL" "$work/d.vdla.txt" || fail "the listing lacks a GEMM line naming its stage"
grep -q "push_next" "$work/d.vdla.txt" || fail "the listing shows no tokens"
"$sim" "$work/d.vdla" | grep -q "cycles" || fail "vdla-sim does not run the file"

default=$("$texc" run "$dense" --target vdla | sed -n 's/.*vdla: \([0-9]*\) cycles.*/\1/p')
echo '{"dram_bytes_per_cycle": 16}' > "$work/fast.json"
fast=$("$texc" run "$dense" --target vdla --vdla-config "$work/fast.json" --trace "$work/t.json" |
       sed -n 's/.*vdla: \([0-9]*\) cycles.*/\1/p')
[ -n "$default" ] && [ -n "$fast" ] && [ "$fast" -lt "$default" ] ||
  fail "a faster DRAM port (--vdla-config) should take fewer cycles: $fast vs $default"
python3 - "$work/t.json" <<'PY' || fail "--trace did not write a timeline with three engine tracks"
import json, sys
d = json.load(open(sys.argv[1]))
events = d['traceEvents'] if isinstance(d, dict) else d
assert {e['tid'] for e in events if e.get('ph') == 'X'} == {0, 1, 2}
PY
echo '{"inp_bufer_bytes": 65536}' > "$work/bad.json"
out=$("$texc" run "$dense" --target vdla --vdla-config "$work/bad.json" 2>&1)
[ $? -eq 1 ] || fail "a bad --vdla-config must exit 1"
echo "$out" | grep -q "bad.json:1:2: error: unknown VDLA configuration key 'inp_bufer_bytes'; did you mean 'inp_buffer_bytes'?" ||
  fail "the bad key is not located: $out"
[ $failures -eq 0 ] && echo "vdla cli: all passed"
[ $failures -eq 0 ]
