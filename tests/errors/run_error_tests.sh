#!/usr/bin/env bash
# Runs every tests/errors/*.tex through texc and checks the diagnostic it must produce.
#
# usage: run_error_tests.sh TEXC [CASES_DIR]
#
# Each case's first line is `# expect: LINE:COL: error: MESSAGE`. Optional next lines:
# `# target: T` compiles it for target T (x86 or arm: --emit obj; vdla: --emit vdla; cuda-interp: --emit
# loops) instead of interp (--emit loops),
# for mistakes that only a code-generating target could trip over; `# args: ARGS` adds command-line
# arguments (`--knob TI=7`) for mistakes in them that point into the file. A case passes when texc
#   - exits with code exactly 1,
#   - prints `CASE.tex:LINE:COL: error: MESSAGE` on stderr (the whole line),
#   - followed by the case's source line LINE and a caret line with the caret in column COL,
#   - and never prints "internal error".
# Cases run from inside CASES_DIR so that file names (and searched import paths) in messages do
# not depend on where the repository lives. Files in subfolders (lib/) are imported by cases only.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 TEXC [CASES_DIR]" >&2
  exit 2
fi
texc=$(realpath "$1")
cases_dir=${2:-$(dirname "$0")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$cases_dir" || exit 2

passed=0
failed=0
for case in *.tex; do
  problems=()
  expect=$(head -n 1 "$case" | sed -n 's/^# expect: //p')
  if [ -z "$expect" ]; then
    problems+=("the first line is not '# expect: LINE:COL: error: MESSAGE'")
  else
    line_no=${expect%%:*}
    rest=${expect#*:}
    col_no=${rest%%:*}
    target=$(sed -n '2,3s/^# target: //p' "$case")
    args=$(sed -n '2,3s/^# args: //p' "$case")
    target=${target:-interp}
    emit=loops
    [ "$target" = interp ] || [ "$target" = cuda-interp ] || emit=obj
    [ "$target" = vdla ] && emit=vdla
    # shellcheck disable=SC2086 # ARGS are split into words
    "$texc" "$case" --target "$target" --emit "$emit" -o "$tmp/out" $args >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    [ "$rc" -eq 1 ] || problems+=("exit code $rc (expected 1)")
    if grep -q "internal error" "$tmp/stderr"; then problems+=("texc reported an internal error"); fi
    at=$(grep -n -x -F -- "$case:$expect" "$tmp/stderr" | head -n 1 | cut -d: -f1)
    if [ -z "$at" ]; then
      problems+=("stderr lacks the line '$case:$expect'")
    else
      source_line=$(sed -n "${line_no}p" "$case")
      printed_source=$(sed -n "$((at + 1))p" "$tmp/stderr")
      caret=$(sed -n "$((at + 2))p" "$tmp/stderr")
      [ "$printed_source" = "$source_line" ] || problems+=("the diagnostic is not followed by source line $line_no")
      if ! [[ "$caret" =~ ^[[:space:]]*\^$ ]] || [ "${#caret}" -ne "$col_no" ]; then
        problems+=("the caret line does not point at column $col_no")
      fi
    fi
  fi
  if [ ${#problems[@]} -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $case"
    for p in "${problems[@]}"; do echo "  - $p"; done
    if [ -s "$tmp/stderr" ]; then sed 's/^/    | /' "$tmp/stderr" | head -n 12; fi
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
