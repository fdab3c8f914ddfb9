#!/usr/bin/env bash
# cuda-interp and --target cuda give the same verdict, and what cuda-interp accepts assembles:
#  1. every file of the end-to-end corpus and every example (as run_corpus.sh runs them) that passes
#     `texc run --target cuda-interp` compiles with `--target cuda` (object, header, PTX) and its PTX
#     assembles with ptxas for sm_80 and sm_90 ($TEXC_PTXAS, /usr/local/cuda/bin/ptxas or PATH; that
#     step is skipped, with a line saying so, without one); a file cuda-interp rejects is rejected by
#     cuda with the same first line;
#  2. every tests/errors case for cuda-interp (`# target: cuda-interp`: the GPU launch limits, binds,
#     barriers...) fails on `--target cuda` with exit 1 and the same located error, and writes nothing.
#
# usage: cuda_verdicts_test.sh TEXC [REPO_ROOT]
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 TEXC [REPO_ROOT]" >&2
  exit 2
fi
texc=$(realpath "$1")
root=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ptxas=${TEXC_PTXAS:-}
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
[ -z "$ptxas" ] && command -v ptxas > /dev/null 2>&1 && ptxas=ptxas
[ -z "$ptxas" ] && echo "skip ptxas: none found (TEXC_PTXAS, /usr/local/cuda/bin/ptxas, PATH); the PTX is generated but not assembled"
failures=0
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

source "$(dirname "$0")/shrink_args.sh"

first_error() { grep -m 1 ': error: ' "$1"; }

# 1. The corpus and the examples.
assembled=0
rejected=0
for file in "$root"/tests/e2e/corpus/*.tex "$root"/examples/*.tex; do
  [ -f "$file" ] || continue
  name=${file#"$root"/}
  base=$tmp/$(basename "$file" .tex)
  run_args=$(sed -n 's/^# run-args://p' "$file" | head -n 1)
  case "$file" in "$root"/examples/*) run_args="$run_args $(shrink_args "$file")" ;; esac
  compile_args=$(sed -E 's/--extern-src [^ ]+//' <<< "$run_args")  # a run-only option
  # shellcheck disable=SC2086  # the args are lists of words
  (cd "$(dirname "$file")" && timeout 300 "$texc" run "$file" --target cuda-interp --repeat 1 \
     -I "$root/tests/e2e/corpus" $run_args) > "$base.interp" 2>&1
  interp=$?
  # shellcheck disable=SC2086
  (cd "$(dirname "$file")" && timeout 300 "$texc" "$file" --target cuda --emit obj,header,ptx -o "$base" \
     -I "$root/tests/e2e/corpus" $compile_args) > "$base.cuda" 2>&1
  cuda=$?
  if [ $interp -eq 1 ]; then
    if [ $cuda -ne 1 ] || [ "$(first_error "$base.interp")" != "$(first_error "$base.cuda")" ]; then
      fail "$name: cuda-interp rejects it, --target cuda exits $cuda:"
      sed 's/^/    /' "$base.interp" "$base.cuda" | head -n 12
    else
      rejected=$((rejected + 1))
    fi
    continue
  fi
  [ $interp -eq 0 ] || continue  # a wrong result on cuda-interp is run_corpus.sh's to report
  if [ $cuda -ne 0 ]; then
    fail "$name: passes cuda-interp, but --target cuda exits $cuda:"
    sed 's/^/    /' "$base.cuda" | head -n 12
    continue
  fi
  [ -n "$ptxas" ] || continue
  for arch in sm_80 sm_90; do
    if ! out=$("$ptxas" -arch=$arch "$base.ptx" -o "$base.$arch.cubin" 2>&1); then
      fail "$name: ptxas -arch=$arch rejects its PTX:"
      echo "$out" | sed 's/^/    /' | head -n 12
      continue 2
    fi
  done
  assembled=$((assembled + 1))
done
echo "corpus: $assembled files pass cuda-interp and assemble for sm_80 and sm_90, $rejected rejected alike by both"

# 2. The cuda-interp error cases on --target cuda.
cases=0
cd "$root/tests/errors" || exit 2
for case in *.tex; do
  [ "$(sed -n '2,3s/^# target: //p' "$case")" = cuda-interp ] || continue
  cases=$((cases + 1))
  expect=$(head -n 1 "$case" | sed -n 's/^# expect: //p')
  args=$(sed -n '2,3s/^# args: //p' "$case")
  rm -rf "$tmp/out" && mkdir "$tmp/out"
  # shellcheck disable=SC2086
  "$texc" "$case" --target cuda -o "$tmp/out/f" $args > "$tmp/stdout" 2> "$tmp/stderr"
  rc=$?
  if [ $rc -ne 1 ] || ! grep -q -x -F -- "$case:$expect" "$tmp/stderr"; then
    fail "tests/errors/$case on --target cuda: exit $rc, expected 1 and '$case:$expect':"
    sed 's/^/    /' "$tmp/stderr" | head -n 6
  elif [ -n "$(ls -A "$tmp/out")" ]; then
    fail "tests/errors/$case on --target cuda: wrote $(ls "$tmp/out" | tr '\n' ' ')before its error"
  fi
done
echo "errors: $cases cuda-interp cases checked on --target cuda"
echo "$failures failure(s)"
[ $failures -eq 0 ]
