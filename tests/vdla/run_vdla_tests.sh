#!/usr/bin/env bash
# Runs every op of tests/vdla/*.tex on one target (`texc run FILE --target TARGET`): on vdla the
# ops' `schedule vdla` on the simulator, elsewhere their cpu schedules; each checked bit for bit
# against the reference interpreter. Exit 77 (skip) when texc cannot run TARGET here (exit 2).
# usage: run_vdla_tests.sh TEXC TARGET REPO_ROOT
set -u
texc=$1
target=$2
root=$3
export TEXC_STDLIB="$root/stdlib"
failed=0
for file in "$root"/tests/vdla/*.tex; do
  out=$("$texc" run "$file" --target "$target" 2>&1)
  rc=$?
  echo "$out"
  if [ $rc -eq 2 ]; then
    echo "SKIP: texc cannot run target $target here"
    exit 77
  fi
  [ $rc -eq 0 ] || failed=$((failed + 1))
done
[ $failed -eq 0 ] && echo "all passed" || echo "$failed file(s) failed"
[ $failed -eq 0 ]
