#!/usr/bin/env bash
# `texc tune` of a network (docs/tuning.md, "Tuning a network"): examples/10_network.tex at S = 8
# is a graph of 6 kernels; tune extracts its tasks (the two conv2d, the two max_pool2d, dense,
# softmax: each layer's shapes differ, so 6 tasks), splits --trials by their FLOPs, prints a line per
# task and writes records carrying the task; a re-run resumes every task. Then a second network
# with the first conv layer under other names (graph_net_b.tex) compiles that kernel with the
# task's best record (the note names it; its loops are those of the same knobs given by --knob) and
# passes `texc run`; tuning it resumes that task from the first network's records. A task none of
# whose candidates is valid (every one crashes: TEXC_TUNE_TEST_FAULT) makes tune exit 1 naming it.
# And --timeout limits a candidate's kernel, not its reference check (slow_reference.tex).
# usage: graph_tune_test.sh TEXC SOURCE_DIR
set -u
texc=$1
src=$2
net=$src/examples/10_network.tex
other=$src/tests/tuner/graph_net_b.tex
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
export TEXC_NUM_THREADS=1

tune() {  # tune FILE RECORDS OUT [ARGS...]
  local file=$1 records=$2 out=$3
  shift 3
  "$texc" tune "$file" --target x86 --records "$records" --seed 1 --tuner random --timeout 30 "$@" \
    >"$out.out" 2>"$out.err"
}

tune "$net" "$work/r.jsonl" "$work/a" -D S=8 --trials 14
check "tune of the network exits 0" test $? -eq 0
check "tune says the op is a graph of 6 kernels and 6 tasks" \
  grep -q "op 'small_cnn' is a graph of 6 kernels: 6 tuning tasks, 14 trials split by their FLOPs" "$work/a.err"
check "a header line per task" test "$(grep -c "^texc: task [1-6]/6 '" "$work/a.err")" -eq 6
check "a progress line per task" grep -q "tune task 6/6 small_cnn_k5:" "$work/a.err"
check "a summary line per task" test "$(grep -c "  task '" "$work/a.out")" -eq 6
check "the first conv's task" grep -q "^small_cnn_k0 .*task 'conv2d(f32\[1, 3, 8, 8\], f32\[8, 3, 3, 3\]) -> f32\[1, 8, 8, 8\] #" "$work/a.out"
python3 - "$work/r.jsonl" "$work/a.err" <<'PY' || bad "records carry their tasks, the trials split by FLOPs"
import json, re, sys
records = [json.loads(l) for l in open(sys.argv[1])]
tasks = {}
for r in records:
    assert r.get("task"), r
    tasks.setdefault(r["task"], []).append(r)
assert len(tasks) == 6, list(tasks)
assert len(records) == 14, len(records)
# The budget of each task, from its header line: the two conv tasks (most of the FLOPs) get the most.
budget = {}
for line in open(sys.argv[2]):
    m = re.match(r"texc: task \d/6 '(.*)': kernels? (\S+), .* (\d+) trials?$", line.strip())
    if m:
        budget[m.group(2).rstrip(",")] = int(m.group(3))
assert sorted(budget) == ["small_cnn_k%d" % k for k in range(6)], budget
assert budget["small_cnn_k0"] + budget["small_cnn_k2"] >= 6, budget
for t, rs in tasks.items():
    assert len({r["op"] for r in rs}) == 1, t
    assert budget[rs[0]["op"]] == len(rs), (t, len(rs))
print("ok: records carry their tasks, the trials split by FLOPs", budget)
PY

tune "$net" "$work/r.jsonl" "$work/again" -D S=8 --trials 14
check "a re-run resumes every task" test "$(grep -c "0 new" "$work/again.out")" -eq 6
check "a re-run measures nothing" test "$(wc -l < "$work/r.jsonl")" -eq 14
tune "$net" "$work/r.jsonl" "$work/json" -D S=8 --trials 14 --json
check "--json: an object per task with its graph op, task and kernels" python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert len(rs) == 6 and all(r["graph_op"] == "small_cnn" and r["task"] and r["kernels"] == [r["op"]] for r in rs), rs
' "$work/json.out"

# The second network: its conv kernel takes the task's best record, found under another op.
"$texc" "$other" --target x86 --records "$work/r.jsonl" --emit loops -o "$work/b" 2>"$work/b.err"
check "compile of the second network with --records" test $? -eq 0
check "its conv kernel takes the first network's record of its task" \
  grep -q "note: kernel 'other_net_k0': knobs .* from the best record of task 'conv2d(f32\[1, 3, 8, 8\], f32\[8, 3, 3, 3\]) -> f32\[1, 8, 8, 8\] #[0-9a-f]*' (tuned as kernel 'small_cnn_k0')" "$work/b.err"
check "its pooling task has no record: the op's knobs" \
  grep -q "note: kernel 'other_net_k1': no valid record of task 'avg_pool2d(.*' on x86: the op's knobs" "$work/b.err"
knobs=$(sed -n "s/.*kernel 'other_net_k0': knobs \(.*\) from the best record.*/\1/p" "$work/b.err")
args=()
for kv in $knobs; do args+=(--knob "$kv"); done
"$texc" "$other" --target x86 --no-records "${args[@]}" --emit loops -o "$work/b_knobs" 2>"$work/b_knobs.err"
check "the record's knobs given with --knob ($knobs) give the same loops" \
  cmp -s "$work/b.loops.txt" "$work/b_knobs.loops.txt"
"$texc" run "$other" --target x86 --records "$work/r.jsonl" --repeat 2 >"$work/b_run.out" 2>&1
check "texc run of the second network with --records passes" test $? -eq 0

cp "$work/r.jsonl" "$work/r2.jsonl"
tune "$other" "$work/r2.jsonl" "$work/b_tune" --trials 4
check "tuning the second network resumes the shared task" \
  grep -q "^other_net_k0 .* ([1-9][0-9]* resumed, 0 new, .*task 'conv2d(f32\[1, 3, 8, 8\]" "$work/b_tune.out"

# Every candidate of the conv tasks crashes: exit 1, naming them.
TEXC_TUNE_TEST_FAULT="crash@CVB_PAR=1" tune "$net" "$work/crash.jsonl" "$work/crash" -D S=8 --trials 8 --knob CVB_PAR=true
check "tune exits 1 when a task has no valid configuration" test $? -eq 1
check "the error names the conv tasks and their kernels" \
  grep -q "error: no valid configuration of task 'conv2d(f32\[1, 3, 8, 8\].*(kernel small_cnn_k0), task 'conv2d(f32\[1, 8, 4, 4\].*(kernel small_cnn_k2) on x86" "$work/crash.err"

# A candidate's limit covers its kernel, not the reference check: slow_reference.tex's reference
# takes seconds (about 4 s here), its kernel about 0.1 s a call; --timeout 2 measures it.
start=$SECONDS
"$texc" tune "$src/tests/tuner/slow_reference.tex" --target x86 --trials 1 --timeout 2 --records "$work/slow.jsonl" \
  >"$work/slow.out" 2>"$work/slow.err"
check "a candidate whose reference takes longer than --timeout is measured" test $? -eq 0
check "its record is ok" grep -q '"status": "ok"' "$work/slow.jsonl"
if [ $((SECONDS - start)) -le 2 ]; then echo "note: the reference took under 2 s here, so this shows little"; fi

if [ "$failures" -ne 0 ]; then
  for f in "$work"/*.out "$work"/*.err; do echo "== $f"; tail -20 "$f"; done
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
