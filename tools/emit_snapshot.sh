#!/usr/bin/env bash
# emit_snapshot.sh TEXC OUT_DIR: every compiler output a refactoring must keep byte-identical, for
# the examples, the e2e corpus, the stdlib tests and the vdla tests: `--emit loops` for x86 and
# cuda-interp, `--emit llvm` for x86 (fixed CPU x86-64-v3, so the host does not matter), PTX for
# cuda, and the .vdla program with its listing for the vdla tests and examples. Compare two
# snapshots with `diff -r A B`. A file a target rejects leaves its error message instead (errors
# must stay the same too). Prints the number of files and outputs.
# usage: tools/emit_snapshot.sh build/tools/texc/texc /tmp/snap-before
set -u
texc=$(realpath "$1")
out=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TEXC_STDLIB="$root/stdlib"
source "$root/tests/e2e/shrink_args.sh"
mkdir -p "$out"
files=0
outputs=0
emit() {  # emit NAME TARGET ARGS...: one output (or its error) into $out/NAME
  local name=$1
  shift
  "$texc" "$@" > "$out/$name" 2>&1 || echo "exit $?" >> "$out/$name"
  outputs=$((outputs + 1))
}
for file in "$root"/examples/*.tex "$root"/tests/e2e/corpus/*.tex "$root"/tests/stdlib/*.tex "$root"/tests/vdla/*.tex; do
  rel=${file#"$root"/}
  key=${rel//\//__}
  args=$(sed -n 's/^# run-args://p' "$file" | head -n 1 | sed -E 's/--extern-src [^ ]+//')
  case "$file" in "$root"/examples/*) args="$args $(shrink_args "$file")" ;; esac
  files=$((files + 1))
  cd "$(dirname "$file")" || exit 2
  # shellcheck disable=SC2086  # args is a list of words
  emit "$key.x86.loops" "$file" --target x86 --mcpu x86-64-v3 --emit loops -o - -I "$root/tests/e2e/corpus" $args
  # shellcheck disable=SC2086
  emit "$key.x86.ll" "$file" --target x86 --mcpu x86-64-v3 --emit llvm -o - -I "$root/tests/e2e/corpus" $args
  # shellcheck disable=SC2086
  emit "$key.cuda.loops" "$file" --target cuda-interp --emit loops -o - -I "$root/tests/e2e/corpus" $args
  # shellcheck disable=SC2086
  emit "$key.cuda.ptx" "$file" --target cuda --emit ptx -o - -I "$root/tests/e2e/corpus" $args
  if grep -q 'schedule vdla\|int8' "$file"; then
    # shellcheck disable=SC2086
    "$texc" "$file" --target vdla -o "$out/$key.vdla" $args > "$out/$key.vdla.log" 2>&1 || echo "exit $?" >> "$out/$key.vdla.log"
    outputs=$((outputs + 1))
  fi
done
echo "$files files, $outputs outputs in $out"
