#!/usr/bin/env bash
# examples/09_tuning.sh — a tuning walk-through on examples/04_knobs.tex (docs/tuning.md):
#   1. tune: 12 trials of the knob space, measured for real, appended to a records file;
#   2. resume: the same command with --trials 20 measures only the 8 missing trials;
#   3. use the records: compile and run with --records (a note says which record was chosen);
#   4. the tuning curve: best GFLOP/s against trials, as an SVG.
# usage: examples/09_tuning.sh [TEXC] [WORKDIR]   (TEXC defaults to build/tools/texc/texc)
# Each step prints what it checks; the script exits 1 if one does not hold.
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
texc=${1:-$here/../build/tools/texc/texc}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
op="$here/04_knobs.tex"
sizes=(-D M=128 -D N=128 -D K=64)    # small, so each trial takes milliseconds
records="$work/r.jsonl"
rm -f "$records"

echo "== 1. tune 12 trials"
"$texc" tune "$op" --target x86 "${sizes[@]}" --trials 12 --records "$records" --seed 1
[ "$(wc -l < "$records")" -eq 12 ] || { echo "expected 12 records"; exit 1; }

echo "== 2. resume to 20 trials: only the missing 8 are measured"
"$texc" tune "$op" --target x86 "${sizes[@]}" --trials 20 --records "$records" --seed 1 --json > "$work/tune.json"
cat "$work/tune.json"
grep -q '"resumed": *12' "$work/tune.json" && grep -q '"new": *8' "$work/tune.json" ||
  { echo "expected 12 resumed and 8 new trials"; exit 1; }

echo "== 3. compile and run the best configuration"
"$texc" run "$op" --target x86 "${sizes[@]}" --records "$records" 2> "$work/note.txt"
cat "$work/note.txt"
grep -q "from the best record of the same shapes" "$work/note.txt" || { echo "expected the records' note"; exit 1; }

echo "== 4. the tuning curve"
"$texc" tune "$op" --target x86 "${sizes[@]}" --trials 20 --records "$records" --curve "$work/curve.svg" > /dev/null
grep -q "<svg" "$work/curve.svg" || { echo "expected an SVG curve"; exit 1; }
echo "curve: $work/curve.svg"
echo "tuning walk-through: ok"
