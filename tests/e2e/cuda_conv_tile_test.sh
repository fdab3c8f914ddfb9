#!/usr/bin/env bash
# nn.conv2d's register-tiled GPU schedule (CVG_RT; docs/cuda.md, "Convolution"; docs/stdlib.md):
#   - tests/stdlib/conv2d.tex's small ops (padding, stride 2, 1x1, 5x4 kernels, 19 channels in
#     tiles of 16, 90 points) with CVG_RT=true on cuda-interp against the reference, with the
#     defaults, with double buffering one channel at a time, and with a taller, narrower tile;
#   - the lowered loops of C2: a local register tile of TF x TX = 2 x 4 per thread, the threads
#     8 channel groups x 16 (2 rows x 8 column groups);
#   - the PTX of C1-C12 with CVG_RT=true assembles for sm_80 and sm_90, with no spills without
#     double buffering, and C2's unrolled loop body has the TF*TX*9 = 72 fused multiply-adds of a
#     3x3 tap set
#     ($TEXC_PTXAS, /usr/local/cuda/bin/ptxas or PATH; skipped without one).
#
# usage: cuda_conv_tile_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
# shellcheck source=ptx_test_setup.sh
. "$root/tests/e2e/ptx_test_setup.sh"

ops=$root/tests/stdlib/conv2d.tex
for knobs in "" "CVG_DB=true CVG_CB=1" "CVG_TX=8 CVG_RY=4 CVG_RX=16 CVG_TF=4"; do
  for op in conv2d_pad1_small conv2d_s2_small conv2d_1x1_small conv2d_k5_small conv2d_1x1_s2_small conv2d_tiles_small; do
    run_knobs "nn.conv2d $op, CVG_RT=true $knobs, on cuda-interp" "$ops" "CVG_RT=true $knobs" --op "$op"
  done
done

loops=$("$texc" "$root/bench/texc_workloads/C2.tex" --target cuda --emit loops -o - --knob CVG_RT=true 2>&1)
check "C2: a register tile of 2 x 4 per thread" grep -q "allocate Y_cvr_YL: f32\[8\] local" <<<"$loops"
check "C2: 8 x 16 threads" \
  bash -c 'grep -q "bound(threadIdx.y) Y_cvr_cft in 0..8" <<<"$1" && grep -q "bound(threadIdx.x) Y_cvr_ctyx in 0..16" <<<"$1"' _ "$loops"

# The register tile alone (CVG_DB=false) has no spills; double-buffered (the default CVG_DB), the
# zero-filling copies' addresses add registers: C4 (sm_90) and C5 spill 4-12 bytes, so there only
# that ptxas assembles it.
for c in C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 C11 C12; do
  if "$texc" "$root/bench/texc_workloads/$c.tex" --target cuda --knob CVG_RT=true --knob CVG_DB=false --emit ptx -o "$work/$c" > /dev/null 2>&1 &&
     "$texc" "$root/bench/texc_workloads/$c.tex" --target cuda --knob CVG_RT=true --emit ptx -o "$work/${c}_db" > /dev/null 2>&1; then
    if [ -n "$ptxas" ]; then
      for arch in sm_80 sm_90; do
        check "$c with CVG_RT=true CVG_DB=false: ptxas $arch, no spills" ptx_no_spills "$work/$c.ptx" $arch
        check "$c with CVG_RT=true: ptxas $arch assembles it" "$ptxas" -arch=$arch "$work/${c}_db.ptx" -o /dev/null
      done
    fi
  else
    check "$c with CVG_RT=true compiles for cuda" false
  fi
done
check "C2 with CVG_RT=true: 72 fma.rn.f32 (2 channels x 4 columns x 9 taps)" \
  test "$(grep -c "fma\.rn\.f32" "$work/C2.ptx")" -eq 72

if [ $failed -ne 0 ]; then
  echo "$failed failure(s)"
  exit 1
fi
echo "all passed"
