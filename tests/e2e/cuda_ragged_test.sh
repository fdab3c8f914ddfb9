#!/usr/bin/env bash
# Ragged tiles on the GPU (lower/gpu/RegisterTileGuards.h): the ops of tests/e2e/cuda_ragged/ run on
# cuda-interp against the reference (races, barriers and out-of-bounds accesses checked), and their
# lowered loops show where the guards went:
#   - ragged_mn.tex (M = N = 100, 64 x 64 tiles): the register tile's accumulation is unguarded, the
#     store to C keeps its guard;
#   - ragged_k.tex (K = 13, 8-wide k tiles): the k guard stays, outside the unrolled accumulators;
#   - tile_larger_than_tensor.tex: the shared copy is allocated whole, so the guard stays.
# And the PTX of workload G5 (1000 x 1000 x 1000, tails everywhere) has about as few branches as
# that of G4 (2048^3, every tile full): before the pass it had a branch per multiply-add (525).
#
# usage: cuda_ragged_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
# shellcheck source=ptx_test_setup.sh
. "$root/tests/e2e/ptx_test_setup.sh"
dir=$root/tests/e2e/cuda_ragged
run_dir "$dir"

loops() { "$texc" "$dir/$1" --target cuda-interp --emit loops -o - 2>&1; }
# The line before the accumulation (an `if` when guarded), and the line before the store to C.
before_update() { loops "$1" | grep -B1 -E "$2" | head -n 1; }
mn_update=$(before_update ragged_mn.tex '_CL\[.*\] = C_mm_CL\[.*\] \+')
check "ragged_mn: the accumulation is unguarded (got: $mn_update)" bash -c '[[ "$1" != *"if ("* ]]' _ "$mn_update"
mn_store=$(before_update ragged_mn.tex '^ *C\[.*\] = C_mm_CL')
check "ragged_mn: the store to C is guarded (got: $mn_store)" bash -c '[[ "$1" == *"< 100"* ]]' _ "$mn_store"
check "ragged_k: the k guard stays, outside the accumulator loops" \
  bash -c 'grep -A1 "if (C_mm_ko\*8 + C_mm_ki < 13)" <<<"$1" | grep -q "unrolled C_mm_cyi"' _ "$(loops ragged_k.tex)"
tl_update=$(loops tile_larger_than_tensor.tex | grep -B2 -E "CW1\[0\] = CW1\[0\] \+" | head -n 1)
check "tile_larger_than_tensor: the accumulation keeps its guard (got: $tl_update)" \
  bash -c '[[ "$1" == *"if (o2*8 + i2 < 13)"* ]]' _ "$tl_update"

branches() {
  "$texc" "$root/bench/texc_workloads/$1.tex" --target cuda --arch sm_90 --emit ptx -o - 2>/dev/null | grep -c '\bbra\b'
}
g4=$(branches G4)
g5=$(branches G5)
check "G5's PTX has at most G4's branches + 16 (G4 $g4, G5 $g5)" test "$g5" -le $((g4 + 16))

if [ $failed -ne 0 ]; then
  echo "$failed failed"
  exit 1
fi
echo "all passed"
