#!/usr/bin/env bash
# Prints the "Compile time" section of docs/performance.md: the per-phase compile times
# (`texc --time-compile`, parse to object, --target x86, default outputs obj and header) of the
# spec's complete example files (examples/*.tex, at their own sizes) and of every stdlib op, each
# at the typical size of its stdlib test (tests/stdlib/OP.tex: the op `*_typical`, else the first
# op there). Times are milliseconds of CPU time of the compiling thread (the machine is shared, so
# wall time includes waiting for a CPU), with the total wall time last; each row is the run with the
# smallest total CPU time of REPEAT runs (default 3).
#
# usage: tools/compile_time_table.sh TEXC [REPEAT]    (use a Release build of texc)
set -eu
texc=$1
repeat=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# row LABEL FILE [TEXC ARGS...]: one table row (CPU times, and the total wall time), from the run
# with the smallest total CPU time of $repeat runs.
row() {
  local label=$1 file=$2
  shift 2
  local best="" best_total=""
  for _ in $(seq "$repeat"); do
    local out total
    out=$("$texc" "$file" --target x86 -o "$work/out" --time-compile "$@" 2>&1 >/dev/null)
    total=$(awk '$1 == "total" {print $4}' <<<"$out")
    if [ -z "$best_total" ] || awk -v a="$total" -v b="$best_total" 'BEGIN {exit !(a < b)}'; then
      best=$out best_total=$total
    fi
  done
  awk -v label="$label" '
    $1 == "frontend" {fe = $4}
    $1 == "lowering" {low += $5}
    /LLVM IR generation/ {ir = $6}
    /LLVM optimization/ {opt = $5}
    /object emission/ {emit = $5}
    $1 == "total" {wall = $2; total = $4}
    END {printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | **%.1f** | %.1f |\n", label, fe, low, ir, opt, emit, total, wall}' <<<"$best"
}

echo "| file / op | frontend | lowering | LLVM IR | LLVM opt | object emission | total CPU | total wall |"
echo "|---|---|---|---|---|---|---|---|"
for file in "$root"/examples/*.tex; do
  row "\`examples/$(basename "$file")\`" "$file"
done
for file in "$root"/tests/stdlib/*.tex; do
  ops=$(sed -nE 's/^op ([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' "$file")
  op=$(grep -m1 '_typical$' <<<"$ops" || true)
  [ -n "$op" ] || op=$(head -n1 <<<"$ops")
  [ -n "$op" ] || continue
  row "\`$op\` (tests/stdlib/$(basename "$file"))" "$file" --op "$op"
done
