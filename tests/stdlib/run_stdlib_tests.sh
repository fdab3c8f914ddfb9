#!/usr/bin/env bash
# Runs the tests of the standard library (tests/stdlib/*.tex, one file per stdlib op) on one target:
# `texc run FILE --target TARGET --op OP` for every op of every file, which compiles the op, runs it
# on random inputs and checks every output against the reference interpreter (texc exits non-zero
# on a mismatch). Prints one line per op and then `N passed, M failed`; exits 0 only if every op
# passed.
#
# usage: run_stdlib_tests.sh TEXC TARGET [REPO_ROOT] [small|all]
#
# A line `# TARGET-args: ARGS` in a file adds ARGS to its runs on TARGET (`# arm-args: --mattr
# +dotprod` for an op whose arm schedule uses the dot-product instructions). A line
# `# x86-requires-cpu: FLAG` skips the file's x86 runs, with a SKIP line, on a host whose
# /proc/cpuinfo lacks FLAG (the x86 target compiles for the host CPU: avx512_vnni for vpdpbusd).
# Ops named *_small (odd, tiny sizes) run on every target; the others (typical sizes) only with
# `all`, the default for x86 — the loop interpreter and qemu (arm) are too slow for them.
# Exit 77 (ctest's skip) with a SKIP line when texc cannot run TARGET here (texc exits 2: the
# target is not in this build of texc yet, or the machine lacks a tool such as qemu-aarch64).
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 TEXC TARGET [REPO_ROOT] [small|all]" >&2
  exit 2
fi
texc=$1
target=$2
root=${3:-$(cd "$(dirname "$0")/../.." && pwd)}
sizes=${4:-$([ "$target" = x86 ] && echo all || echo small)}
export TEXC_STDLIB="$root/stdlib"

passed=0
failed=0
failed_ops=()
first=1
for file in "$root"/tests/stdlib/*.tex; do
  [ -f "$file" ] || continue
  name=${file#"$root"/}
  ops=$(sed -nE 's/^op[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$file")
  if [ -z "$ops" ]; then
    echo "FAIL $name: no op in the file"
    failed=$((failed + 1))
    failed_ops+=("$name")
    continue
  fi
  required=$(sed -n "s/^# $target-requires-cpu:[[:space:]]*//p" "$file" | head -n 1)
  if [ -n "$required" ] && ! grep -qw "$required" /proc/cpuinfo 2>/dev/null; then
    echo "SKIP $name on $target: this CPU lacks $required"
    continue
  fi
  # `# arm-args: ...` (or x86-args, interp-args...) in the file: arguments for that target's runs.
  target_args=$(sed -n "s/^# $target-args://p" "$file" | head -n 1)
  for op in $ops; do
    case "$op" in
      *_small) ;;
      *) [ "$sizes" = all ] || continue ;;
    esac
    start=$(date +%s%N)
    # shellcheck disable=SC2086  # target_args is a list of words
    output=$(timeout 600 "$texc" run "$file" --target "$target" --op "$op" $target_args 2>&1)
    status=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    if [ $first -eq 1 ] && [ $status -eq 2 ]; then
      echo "SKIP: texc cannot run target '$target' here (exit 2):"
      echo "$output" | sed 's/^/    /'
      exit 77
    fi
    first=0
    if [ $status -eq 0 ] && grep -q "PASS" <<<"$output"; then
      passed=$((passed + 1))
      printf 'PASS %-50s %6d ms  %s\n' "$name:$op" "$ms" "$(grep PASS <<<"$output" | head -n 1 | sed -E 's/^[^ ]+ +[^ ]+ +PASS +//')"
    else
      failed=$((failed + 1))
      failed_ops+=("$name:$op")
      echo "FAIL $name:$op (exit $status)"
      echo "$output" | sed 's/^/    /'
    fi
  done
done
echo "$passed passed, $failed failed ($target, $sizes sizes)"
if [ $failed -ne 0 ]; then
  printf 'failed: %s\n' "${failed_ops[@]}"
  exit 1
fi
