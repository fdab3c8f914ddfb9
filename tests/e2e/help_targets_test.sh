#!/usr/bin/env bash
# help_targets_test.sh TEXC ROOT: `texc --help` lists every target of ir/Target.cpp's table (each
# `.name = "..."` entry of all_targets(), which tools/driver/TargetRegistry.cpp registers one
# behaviour for), one line each under "targets", and no other.
set -u
texc=$1
root=$2
table=$(sed -n '/all_targets() {/,/^}/p' "$root/ir/Target.cpp" | grep -oE '\.name = "[^"]+"' | sed -E 's/.*"(.*)"/\1/')
[ -n "$table" ] || { echo "FAIL: no target entries found in ir/Target.cpp's all_targets()"; exit 1; }
help=$("$texc" --help 2>&1) || { echo "FAIL: texc --help exits $?"; exit 1; }
listed=$(printf '%s\n' "$help" | sed -n '/^targets (--target/,/^[^ ]/p' | grep -E '^  [a-z]' | awk '{print $1}')
failures=0
for name in $table; do
  if printf '%s\n' "$listed" | grep -qxF "$name"; then echo "ok: --help lists $name"; else echo "FAIL: --help does not list target '$name'"; failures=$((failures + 1)); fi
done
for name in $listed; do
  printf '%s\n' "$table" | grep -qxF "$name" || { echo "FAIL: --help lists '$name', which ir/Target.cpp does not describe"; failures=$((failures + 1)); }
done
[ "$failures" = 0 ] || exit 1
echo "help_targets_test: ok ($(printf '%s\n' "$table" | wc -l) targets)"
