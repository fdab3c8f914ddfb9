#!/usr/bin/env bash
# Runs `texc run FILE --target TARGET` on every op file of the end-to-end corpus
# (tests/e2e/corpus/*.tex) and on every complete example (examples/*.tex), prints one line per
# file and then `N passed, M failed`; exits 0 only if every file passed.
#
# usage: run_corpus.sh TEXC TARGET [REPO_ROOT [TEXC_ARGS...]]   e.g. run_corpus.sh build/tools/texc/texc interp
#
# TEXC_ARGS are added to every `texc run` (e.g. --repeat 1). Extra arguments for a file come from a
# `# run-args: ...` comment in it; texc runs in the file's folder, so paths there (e.g. --extern-src
# of a tensorized op's C kernel) are relative to the file. Examples have realistic
# sizes, so their params are shrunk for the run: a param above 64 becomes 64 (e.g. -D M=64 -D N=64
# -D K=64 for a matmul), and in a file that uses conv2d a param above 16 becomes 14.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 TEXC TARGET [REPO_ROOT]" >&2
  exit 2
fi
texc=$1
target=$2
root=$(cd "${3:-$(dirname "$0")/../..}" && pwd)
shift $(($# < 3 ? $# : 3))
common_args=("$@")
case "$texc" in */*) texc=$(cd "$(dirname "$texc")" && pwd)/$(basename "$texc") ;; esac

source "$(dirname "$0")/shrink_args.sh"

passed=0
failed=0
failed_files=()
files=("$root"/tests/e2e/corpus/*.tex "$root"/examples/*.tex)
for file in "${files[@]}"; do
  [ -f "$file" ] || continue
  args=$(sed -n 's/^# run-args://p' "$file" | head -n 1)
  case "$file" in
    "$root"/examples/*) args="$args $(shrink_args "$file")" ;;
  esac
  # shellcheck disable=SC2086  # args is a list of words
  output=$(cd "$(dirname "$file")" &&
    timeout 600 "$texc" run "$file" --target "$target" -I "$root/tests/e2e/corpus" $args "${common_args[@]}" 2>&1)
  status=$?
  name=${file#"$root"/}
  if [ $status -eq 0 ]; then
    passed=$((passed + 1))
    echo "PASS $name $args"
  else
    failed=$((failed + 1))
    failed_files+=("$name")
    echo "FAIL $name $args (exit $status)"
    echo "$output" | sed 's/^/    /'
  fi
done
echo "$passed passed, $failed failed"
if [ $failed -ne 0 ]; then
  printf 'failed: %s\n' "${failed_files[@]}"
  exit 1
fi
