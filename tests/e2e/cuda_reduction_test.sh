#!/usr/bin/env bash
# Cross-thread reductions (docs/cuda.md): the ops of tests/e2e/cuda_reduction/ and the *_small ops
# of the stdlib tests whose ops have cross-thread `schedule cuda` blocks (softmax, log_softmax,
# layer_norm, global_avg_pool2d) run on cuda-interp against the reference interpreter, and their
# PTX (--target cuda) holds warp shuffles and assembles with the CUDA toolkit's ptxas for sm_80
# and sm_90 ($TEXC_PTXAS, /usr/local/cuda/bin/ptxas or PATH; that half is skipped without one).
#
# usage: cuda_reduction_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
export TEXC_STDLIB="$root/stdlib"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

ptxas=${TEXC_PTXAS:-}
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
[ -z "$ptxas" ] && command -v ptxas > /dev/null 2>&1 && ptxas=ptxas
[ -z "$ptxas" ] && echo "note: no ptxas: the PTX is generated but not assembled"

files=("$root"/tests/e2e/cuda_reduction/*.tex)
for t in softmax log_softmax layer_norm global_avg_pool2d; do files+=("$root/tests/stdlib/$t.tex"); done
for file in "${files[@]}"; do
  name=${file#"$root"/}
  for op in $(sed -nE 's/^op[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$file"); do
    case "$name" in tests/stdlib/*) [[ $op == *_small ]] || continue ;; esac
    if out=$("$texc" run "$file" --target cuda-interp --op "$op" 2>&1); then
      echo "ok   $name $op on cuda-interp"
    else
      fail "$name $op on cuda-interp:"
      echo "$out" | tail -20
    fi
  done
  base=$work/$(basename "$file" .tex)
  for arch in sm_80 sm_90; do
    if ! out=$("$texc" "$file" --target cuda --arch "$arch" --emit ptx -o "$base.$arch" 2>&1); then
      fail "$name: --target cuda --arch $arch:"
      echo "$out" | tail -20
      continue
    fi
    grep -q "shfl.sync.down.b32" "$base.$arch.ptx" || fail "$name: no shfl.sync.down in its PTX for $arch"
    [ -n "$ptxas" ] || continue
    if out=$("$ptxas" -arch="$arch" "$base.$arch.ptx" -o "$base.$arch.cubin" 2>&1); then
      echo "ok   $name: ptxas -arch=$arch"
    else
      fail "$name: ptxas -arch=$arch:"
      echo "$out" | tail -20
    fi
  done
done
if [ $failed -ne 0 ]; then
  echo "$failed failure(s)"
  exit 1
fi
echo "all passed"
