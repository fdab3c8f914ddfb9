#!/usr/bin/env bash
# Double-buffered shared tiles (docs/cuda.md, "Double buffering"; lower/gpu/DoubleBuffer.h):
#   - tests/e2e/cuda_double_buffer/*.tex and the stdlib ragged shapes of tests/e2e/cuda_vector_fill
#     with MMG_DB / BMMG_DB on (and with the fills vectorized and the A tile padded) run on
#     cuda-interp against the reference (races, barriers, out-of-bounds accesses checked);
#   - the lowered loops hold the doubled tiles, the prologue and the prefetch; a tile the pass
#     cannot pipeline (relaxed_not_pipelined.tex) gets a remark;
#   - the PTX for sm_80 and sm_90 has cp.async copies, commit_group and wait_group, the PTX for sm_75
#     plain loads and shared stores and no cp.async; ptxas assembles each with no spills, and G1-G6
#     with MMG_DB=true ($TEXC_PTXAS, /usr/local/cuda/bin/ptxas or PATH; skipped without one);
#   - nn.conv2d with CVG_DB=true on cuda-interp (small ragged shapes), and the PTX of C2-C12 with it
#     (cp.async, ptxas); nn.dense with and without DNG_DB on cuda-interp, and the PTX of a 64 x 1000
#     x 1024 dense (128-bit loads in the fills, cp.async with DNG_DB, ptxas).
#
# usage: cuda_double_buffer_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
# shellcheck source=ptx_test_setup.sh
. "$root/tests/e2e/ptx_test_setup.sh"

dir=$root/tests/e2e/cuda_double_buffer
ragged=$root/tests/e2e/cuda_vector_fill/stdlib_ragged.tex
run_dir "$dir"
check "stdlib ragged shapes, double-buffered, on cuda-interp" \
  "$texc" run "$ragged" --target cuda-interp --knob MMG_DB=true --knob BMMG_DB=true
check "stdlib ragged shapes, double-buffered, vectorized and padded, on cuda-interp" \
  "$texc" run "$ragged" --target cuda-interp --knob MMG_DB=true --knob BMMG_DB=true --knob MMG_VEC=4 --knob BMMG_VEC=2 \
  --knob MMG_PAD=true --knob BMMG_PAD=true

loops=$("$texc" "$dir/matmul_pipelined.tex" --target cuda-interp --emit loops -o - 2>&1)
check "the tiles have two halves" bash -c 'grep -q "allocate AS: f32\[2048\] shared" <<<"$1" && grep -q "allocate BS: f32\[2048\] shared" <<<"$1"' _ "$loops"
check "the prefetch fills half (ko + 1)%2 with the tile of ko + 1, before the wait" \
  bash -c 'grep -q "if (ko < 15)" <<<"$1" && grep -q "AS\[ramp((ko + 1)%2\*1024 + " <<<"$1" && grep -q "async_copy_wait(1i32)" <<<"$1"' _ "$loops"
check "the block reads half ko%2" grep -q "AS\[ko%2\*1024 + " <<<"$loops"

check "a tile the pass cannot pipeline: a remark at its cache_read" \
  bash -c '"$1" run "$2" --target cuda-interp --remarks 2>&1 | grep -q "relaxed_not_pipelined.tex:[0-9]*:[0-9]*: remark: double_buffer(AS) not applied"' \
  _ "$texc" "$dir/relaxed_not_pipelined.tex"

for arch in sm_80 sm_90 sm_75; do
  if ! "$texc" "$dir/matmul_pipelined.tex" --target cuda --arch $arch --emit ptx -o "$work/mm_$arch" > /dev/null 2>&1; then
    check "matmul_pipelined compiles for $arch" false
    continue
  fi
  ptx=$work/mm_$arch.ptx
  if [ $arch = sm_75 ]; then
    check "$arch: no cp.async (it needs sm_80), plain 128-bit copies" \
      bash -c '! grep -q "cp\.async" "$1" && grep -q "ld\.global\.nc\.v4\.f32" "$1" && grep -q "st\.shared\.v4\.f32" "$1"' _ "$ptx"
  else
    check "$arch: 16-byte cp.async copies, commit and wait" \
      bash -c 'grep -q "cp\.async\.cg\.shared\.global \[.*\], \[.*\], 16;" "$1" && grep -q "cp\.async\.commit_group" "$1" && grep -q "cp\.async\.wait_group 1" "$1"' _ "$ptx"
  fi
  [ -n "$ptxas" ] && check "matmul_pipelined: ptxas $arch, no spills" ptx_no_spills "$ptx" $arch
done
for g in G1 G2 G3 G4 G5 G6; do
  if "$texc" "$root/bench/texc_workloads/$g.tex" --target cuda --knob MMG_DB=true --emit ptx -o "$work/$g" > /dev/null 2>&1; then
    check "$g with MMG_DB=true: cp.async in its PTX" grep -q "cp\.async\.c[ag]\.shared\.global" "$work/$g.ptx"
    [ -n "$ptxas" ] && check "$g with MMG_DB=true: ptxas sm_80, no spills" ptx_no_spills "$work/$g.ptx" sm_80
  else
    check "$g with MMG_DB=true compiles for cuda" false
  fi
done

# nn.conv2d's CVG_DB (on by default): the padded input patch (a select: cp.async's zero-filling
# form) and the weights double-buffered over the channel tiles, ragged (5 channels in tiles of 4)
# and one channel per tile; the PTX of C2-C12 has cp.async, the patch's zero-filling ones among
# them, and no spills for sm_80 and sm_90.
for op in "conv2d_tiles_small 4" "conv2d_tiles_small 1" "conv2d_pad1_small 1" "conv2d_s2_small 1" "conv2d_k5_small 1"; do
  read -r name cb <<<"$op"
  check "nn.conv2d $name, CVG_DB=true CVG_CB=$cb, on cuda-interp" \
    "$texc" run "$root/tests/stdlib/conv2d.tex" --op "$name" --target cuda-interp --knob CVG_DB=true --knob CVG_CB="$cb"
done
for c in C2 C3 C4 C5 C6 C7 C8 C9 C10 C11 C12; do
  if "$texc" "$root/bench/texc_workloads/$c.tex" --target cuda --knob CVG_DB=true --emit ptx -o "$work/$c" > /dev/null 2>&1; then
    check "$c with CVG_DB=true: cp.async in its PTX" grep -q "cp\.async\.c[ag]\.shared\.global" "$work/$c.ptx"
    [ "$c" = C3 ] || [ "$c" = C5 ] || [ "$c" = C8 ] || [ "$c" = C11 ] ||  # 1x1 kernels without padding: no select
      check "$c with CVG_DB=true: the padded patch by zero-filling cp.async" \
        grep -Eq "cp\.async\.ca\.shared\.global(\.L2::[0-9]+B)? \[[^]]*\], \[[^]]*\], 4, %r" "$work/$c.ptx"
    no_spills_sm80_sm90 "$c with CVG_DB=true" "$work/$c.ptx"
  else
    check "$c with CVG_DB=true compiles for cuda" false
  fi
done

# nn.dense: its fills 4 floats at a time where K is a multiple of 4 (by default), DNG_DB on top
for db in false true; do
  check "nn.dense (tests/stdlib/dense.tex), DNG_DB=$db, on cuda-interp" \
    "$texc" run "$root/tests/stdlib/dense.tex" --target cuda-interp --knob DNG_DB=$db
done
cat > "$work/dense.tex" <<'TEX'
import nn.dense
op dense_64x1000x1024(X: f32[64, 1024], W: f32[1000, 1024]) -> Y {
  compute { Y = dense(X, W) }
}
TEX
if "$texc" "$work/dense.tex" --target cuda --emit ptx -o "$work/dense" > /dev/null 2>&1 &&
   "$texc" "$work/dense.tex" --target cuda --knob DNG_DB=true --emit ptx -o "$work/dense_db" > /dev/null 2>&1; then
  check "nn.dense 64x1000x1024: 128-bit global loads in its fills" grep -q "ld\.global\.nc\.v4\.f32" "$work/dense.ptx"
  check "nn.dense 64x1000x1024 with DNG_DB=true: 16-byte cp.async" grep -q "cp\.async\.cg\.shared\.global" "$work/dense_db.ptx"
  if [ -n "$ptxas" ]; then
    check "nn.dense: ptxas sm_80, no spills" ptx_no_spills "$work/dense.ptx" sm_80
    check "nn.dense with DNG_DB=true: ptxas sm_80, no spills" ptx_no_spills "$work/dense_db.ptx" sm_80
  fi
else
  check "nn.dense 64x1000x1024 compiles for cuda" false
fi

if [ $failed -ne 0 ]; then
  echo "$failed failure(s)"
  exit 1
fi
echo "all passed"
