#!/usr/bin/env bash
# Warp tiling on the CUDA cores (docs/cuda.md, "Warp tiling"; linalg.matmul's MMG_WARP):
#   - tests/e2e/cuda_warp_tile/*.tex (the idiom written by hand) and the stdlib's ragged shapes of
#     tests/e2e/cuda_vector_fill (127x255x511, 99x100x52, 200x132x36) with MMG_WARP=true and
#     several warp and lane shapes (lanes 4 x 8, 8 x 4 and 16 x 2, a register tile lowered to fit
#     a short warp tile, split-K, no double buffering, padded A) run on cuda-interp against the
#     reference (races, barriers and out-of-bounds accesses checked);
#   - the lowered loops bind the fused warp index to threadIdx.y (WM * WN) and the lane to
#     threadIdx.x (32), the shared fills by the same two tags;
#   - the PTX of G1-G6 with MMG_WARP=true assembles for sm_80 and sm_90 with no spills, reads the B
#     tile 128 bits at a time (ld.shared.v4.f32) and fills by cp.async ($TEXC_PTXAS,
#     /usr/local/cuda/bin/ptxas or PATH; skipped without one).
#
# usage: cuda_warp_tile_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
# shellcheck source=ptx_test_setup.sh
. "$root/tests/e2e/ptx_test_setup.sh"

dir=$root/tests/e2e/cuda_warp_tile
ragged=$root/tests/e2e/cuda_vector_fill/stdlib_ragged.tex
run_dir "$dir"
for knobs in "" "MMG_WTN=64 MMG_WN=1 MMG_DB=false" "MMG_TM=2 MMG_TN=8 MMG_SPLITK=4" \
             "MMG_TM=8 MMG_TN=8 MMG_WTM=16 MMG_WTN=16 MMG_WM=4" "MMG_TM=1 MMG_TN=1 MMG_PAD=true MMG_VEC=4"; do
  run_knobs "stdlib ragged shapes, MMG_WARP=true $knobs, on cuda-interp" "$ragged" "MMG_WARP=true $knobs"
done

loops=$("$texc" "$root/bench/texc_workloads/G4.tex" --target cuda-interp --emit loops -o - --knob MMG_WARP=true 2>&1)
check "G4 warp-tiled: the warp on threadIdx.y (2 x 2), the lane on threadIdx.x (32)" \
  bash -c 'grep -q "bound(threadIdx.y) C_mmw_w in 0..4" <<<"$1" && grep -q "bound(threadIdx.x) C_mmw_lane in 0..32" <<<"$1"' _ "$loops"
check "G4 warp-tiled: the fills by the same tags" \
  bash -c 'grep -q "bound(threadIdx.y) C_mm_ay in 0..4" <<<"$1" && grep -q "bound(threadIdx.x) C_mm_ax in 0..32" <<<"$1"' _ "$loops"

for g in G1 G2 G3 G4 G5 G6; do
  if "$texc" "$root/bench/texc_workloads/$g.tex" --target cuda --knob MMG_WARP=true --emit ptx -o "$work/$g" > /dev/null 2>&1; then
    check "$g with MMG_WARP=true: the B tile read by ld.shared.v4.f32" grep -q "ld\.shared\.v4\.f32" "$work/$g.ptx"
    check "$g with MMG_WARP=true: cp.async fills" grep -q "cp\.async\.c[ag]\.shared\.global" "$work/$g.ptx"
    no_spills_sm80_sm90 "$g with MMG_WARP=true" "$work/$g.ptx"
  else
    check "$g with MMG_WARP=true compiles for cuda" false
  fi
done

if [ $failed -ne 0 ]; then
  echo "$failed failure(s)"
  exit 1
fi
echo "all passed"
