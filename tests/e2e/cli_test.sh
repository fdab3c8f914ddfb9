#!/usr/bin/env bash
# Checks the texc command line (shared/spec/cli.md) on the interp target: exit codes (0 success,
# 1 user error or failed check, 2 missing target/tool), messages of bad command lines, --json,
# --save-io / --inputs round trips, a wrong input file, and --emit loops.
# usage: cli_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
op=$root/tests/e2e/corpus/ew_add.tex
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

expect 0 '^texc [0-9]+\.[0-9]+' -- --version
expect 0 'texc run  FILE.tex --target T' -- --help
expect 1 'no input file' --
expect 1 'no target' -- run "$op"
expect 1 "unknown target 'gpu'" -- run "$op" --target gpu
expect 1 "unknown option '--frobnicate'" -- run "$op" --target interp --frobnicate
expect 1 "-D needs NAME=VALUE, not 'M'" -- run "$op" --target interp -D M
expect 1 "--repeat must be at least 1" -- run "$op" --target interp --repeat 0
expect 1 "--emit: unknown output kind 'exe'" -- "$op" --target interp --emit exe
expect 1 "there is no param or dimension variable named 'Q'" -- run "$op" --target interp -D Q=3
expect 1 "cannot open file" -- run "$work/missing.tex" --target interp
expect 2 "no CUDA device" -- run "$op" --target cuda
expect 2 "target 'vdla' is not available yet" -- run "$op" --target vdla
expect 2 "needs the tuner" -- tune "$op" --target x86 --trials 2 --records "$work/r.jsonl"

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

echo "$failures failed"
[ "$failures" -eq 0 ]
