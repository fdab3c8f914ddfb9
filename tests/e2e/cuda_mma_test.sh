#!/usr/bin/env bash
# Tensor cores through tensorize (docs/cuda.md, "Tensor cores"; lower/gpu/MmaIntrinsics.h):
#   - tests/e2e/cuda_mma/*.tex (hand-written TF32, 3xTF32, f16 and bf16 warp tiles) and linalg.matmul with
#     MMG_TC=1 and 2 (several warp shapes, with and without double buffering) and batch_matmul with
#     BMMG_TC=1 and 2 run on cuda-interp, and linalg.matmul on a shape its tiles do not divide
#     (stdlib_tc_ragged.tex, 100 x 72; ragged_rows.tex by hand) and on k tiles that do not divide K
#     (ragged_k.tex by hand, TF32, 3xTF32, f16 and bf16 with and without double_buffer;
#     stdlib_tc_ragged_k.tex, G6's 127 x 255 x 511; stdlib_tc_ragged_k4.tex, K a multiple of 4;
#     stdlib_tc_ragged_k_half.tex, matmul_f16 and matmul_bf16; stdlib_tc_batch_ragged_k.tex),
#     their shared tiles zero-padded past K, whose PTX (G6 in f32, f16 and bf16, ragged_k.tex for
#     sm_80 and sm_90, batch_matmul) zero-fills the padded copies by cp.async's src-size form, and nn.conv2d with CVG_TC=1 and 2
#     (stdlib_conv_tc.tex; the PTX of C2, C4, C6 and C9)
#     against the reference: the interpreter exchanges every lane's fragments and computes each
#     accumulator element from the lanes PTX's layout names, so a wrong layout is a wrong result;
#   - the error of each against an f64 reference (accuracy.py): TF32 within the check's widened
#     tolerance (2 * 2^-11 of the terms' magnitude), 3xTF32 and CUDA cores at f32's level (< 1e-6);
#   - the PTX for sm_80 and sm_90 has mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 with its
#     operands converted by cvt.rna.tf32.f32, one mma per 16 x 8 x 8 step (three for 3xTF32), and
#     for G1-G4 with MMG_TC=1 cp.async copies and A's fragments by ldmatrix too; f16.tex's and
#     linalg.matmul_f16's (G1-G4) have mma.sync m16n8k16 .f16 with an f32 accumulator, A by
#     ldmatrix x4 and B (k by n) by ldmatrix x2.trans (lower/gpu/LdMatrix.h), bf16.tex's and
#     linalg.matmul_bf16's (bench/texc_workloads/bf16/G1.tex) the .bf16 one; ptxas assembles them
#     with no spills ($TEXC_PTXAS,
#     /usr/local/cuda/bin/ptxas or PATH; skipped without one); sm_75 is refused (exit 1).
#
# usage: cuda_mma_test.sh TEXC REPO_ROOT [PYTHON]
set -u
texc=$1
root=$2
python=${3:-}
if [ -z "$python" ]; then  # the first with numpy (Debian's python3 may not be the first on PATH)
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import numpy" 2>/dev/null; then python=$candidate; break; fi
  done
fi
# shellcheck source=ptx_test_setup.sh
. "$root/tests/e2e/ptx_test_setup.sh"
error_below() {  # $1 save-io dir, $2 op, $3 bound: the error against f64 (accuracy.py) is below it
  local line
  line=$("$python" "$dir/accuracy.py" "$1" "$2" "$4" "$5" "$6") || return 1
  echo "$2 ($7): $line"
  awk -v e="${line#max_err_vs_f64 }" -v b="$3" 'BEGIN { exit !(e < b) }'
}

# A 16-bit GEMM's PTX ($1): the m16n8k16 mma of its operand type ($2: f16 or bf16), cp.async
# fills, and both tiles read by ldmatrix (A x4, B stored k by n x2.trans).
half_gemm_ptx() {
  grep -q "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.$2\.$2\.f32" "$1" && grep -q "cp\.async\.cg\.shared\.global" "$1" &&
    grep -q "ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16" "$1" && grep -q "ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16" "$1"
}

dir=$root/tests/e2e/cuda_mma
run_dir "$dir"
stdlib=$dir/stdlib_tc.tex
for knobs in "MMG_TC=1 MMG_WN=1" "MMG_TC=2 MMG_WN=1" "MMG_TC=1 MMG_WN=1 MMG_DB=false" \
             "MMG_TC=1 MMG_WM=4 MMG_WN=1 MMG_WTM=16 MMG_WTN=16 MMG_TBK=32" "MMG_TC=1 MMG_WM=1 MMG_WN=2 MMG_WTM=64 MMG_WTN=16 MMG_TBK=8"; do
  run_knobs "linalg.matmul $knobs on cuda-interp" "$stdlib" "$knobs"
done

# a shape the tiles do not divide (100 x 72): the register tile's edge guards taken out, every lane at the mma
for knobs in "MMG_TC=1 MMG_WN=1" "MMG_TC=2 MMG_WN=1 MMG_DB=false" "MMG_TC=1 MMG_WM=1 MMG_WN=2 MMG_WTM=64 MMG_WTN=16 MMG_TBK=8"; do
  run_knobs "linalg.matmul 100 x 72, $knobs on cuda-interp" "$dir/stdlib_tc_ragged.tex" "$knobs"
done
if "$texc" "$dir/stdlib_tc_ragged.tex" --target cuda --knob MMG_TC=1 --knob MMG_WN=1 --emit ptx -o "$work/ragged" > /dev/null 2>&1; then
  check "linalg.matmul 100 x 72 MMG_TC=1: mma.sync in its PTX" grep -q "mma\.sync\.aligned\.m16n8k8" "$work/ragged.ptx"
  [ -n "$ptxas" ] && check "linalg.matmul 100 x 72 MMG_TC=1: ptxas sm_80, no spills" ptx_no_spills "$work/ragged.ptx" sm_80
else
  check "linalg.matmul 100 x 72 MMG_TC=1 compiles for cuda" false
fi

# k tiles that do not divide K (G6's 127 x 255 x 511): the shared tiles zero-padded past K
# (lower/gpu/ZeroPadKTiles.h), every lane at the mma over the whole last tile
for knobs in "MMG_TC=1" "MMG_TC=1 MMG_WN=1 MMG_DB=false MMG_TBK=32"; do
  run_knobs "linalg.matmul 127 x 255 x 511, $knobs on cuda-interp" "$dir/stdlib_tc_ragged_k.tex" "$knobs"
done
# K = 100 (a multiple of 4, not of the k tile): A's vectors padded as a whole, one condition each
for knobs in "MMG_TC=1 MMG_WN=1" "MMG_TC=2 MMG_WN=1 MMG_DB=false"; do
  run_knobs "linalg.matmul 100 x 100 x 72, $knobs on cuda-interp" "$dir/stdlib_tc_ragged_k4.tex" "$knobs"
done
check "linalg.matmul with K = 100: A's fill of 4 floats padded by one scalar select per vector" \
  bash -c '"$1" "$2" --target cuda-interp --knob MMG_TC=1 --knob MMG_WN=1 --emit loops -o - |
           grep -q "mmt_AS\[ramp(.*)\] = select([^()]*\(([^()]*)[^()]*\)* < [0-9]*, X\[ramp("' _ "$texc" "$dir/stdlib_tc_ragged_k4.tex"
for knobs in "BMMG_TC=1" "BMMG_TC=2 BMMG_DB=false"; do
  run_knobs "linalg.batch_matmul with K = 45, $knobs on cuda-interp" "$dir/stdlib_tc_batch_ragged_k.tex" "$knobs"
done
check "ragged_k.tex: the fill of A's last k tile stores select(k < 60, A[..], 0) (zero_pad_k_tiles)" \
  bash -c '"$1" "$2" --target cuda-interp --op mm_tf32_k60 --emit loops -o - | grep -q "AS\[.*\] = select(ko\*8 + .* < 60, A\[.*\], 0\.0f)"' _ "$texc" "$dir/ragged_k.tex"
# the padded elements of a double-buffered fill: cp.async's src-size form (zero-filling), e.g.
# `cp.async.ca.shared.global [%rd1], [%rd2], 4, %r3;`
zero_fill_copies() { grep -q "cp\.async\.ca\.shared\.global \[%rd[0-9]*\], \[%rd[0-9]*\], 4, %r[0-9]*;" "$1"; }
for arch in sm_80 sm_90; do
  if "$texc" "$root/bench/texc_workloads/G6.tex" --target cuda --arch $arch --knob MMG_TC=1 --emit ptx -o "$work/G6_$arch" > /dev/null 2>&1; then
    check "G6 with MMG_TC=1 ($arch): mma.sync, zero-filling cp.async and ldmatrix x4 in its PTX" \
      bash -c 'grep -q "mma\.sync\.aligned\.m16n8k8" "$1" && grep -q "ldmatrix\.sync\.aligned\.m8n8\.x4" "$1"' _ "$work/G6_$arch.ptx"
    check "G6 with MMG_TC=1 ($arch): the last k tile's copies zero-fill past K" zero_fill_copies "$work/G6_$arch.ptx"
    [ -n "$ptxas" ] && check "G6 with MMG_TC=1: ptxas $arch, no spills" ptx_no_spills "$work/G6_$arch.ptx" $arch
  else
    check "G6 with MMG_TC=1 compiles for cuda $arch" false
  fi
  if "$texc" "$dir/ragged_k.tex" --target cuda --arch $arch --emit ptx -o "$work/ragged_k_$arch" > /dev/null 2>&1; then
    check "ragged_k.tex ($arch): tf32 and f16 mma.sync, zero-filling cp.async" \
      bash -c 'grep -q "mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32" "$1" &&
               grep -q "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16" "$1"' _ "$work/ragged_k_$arch.ptx"
    check "ragged_k.tex ($arch): the last k tile's copies zero-fill past K" zero_fill_copies "$work/ragged_k_$arch.ptx"
    [ -n "$ptxas" ] && check "ragged_k.tex: ptxas $arch, no spills" ptx_no_spills "$work/ragged_k_$arch.ptx" $arch
  else
    check "ragged_k.tex compiles for cuda $arch" false
  fi
done
if "$texc" "$dir/stdlib_tc_ragged_k_half.tex" --op ragged_k_f16 --target cuda --emit ptx -o "$work/ragged_k_f16" > /dev/null 2>&1; then
  check "linalg.matmul_f16 with K = 200: m16n8k16 mma.sync, 16-byte zero-filling cp.async" \
    bash -c 'grep -q "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16" "$1" &&
             grep -q "cp\.async\.cg\.shared\.global \[%rd[0-9]*\], \[%rd[0-9]*\], 16, %r[0-9]*;" "$1"' _ "$work/ragged_k_f16.ptx"
  [ -n "$ptxas" ] && check "linalg.matmul_f16 with K = 200: ptxas sm_80, no spills" ptx_no_spills "$work/ragged_k_f16.ptx" sm_80
else
  check "linalg.matmul_f16 with K = 200 compiles for cuda" false
fi
# G6 in f16 and bf16 (bench/texc_workloads/f16, bf16: 127 x 255 x 511) on the tensor cores (its odd
# K and N: fills of one half each, plain loads and stores: cp.async copies 4 bytes or more)
for t in f16 bf16; do
  if "$texc" "$root/bench/texc_workloads/$t/G6.tex" --target cuda --emit ptx -o "$work/G6_$t" > /dev/null 2>&1; then
    check "G6 $t: mma.sync m16n8k16 in its PTX" grep -q "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.$t" "$work/G6_$t.ptx"
    [ -n "$ptxas" ] && check "G6 $t: ptxas sm_80, no spills" ptx_no_spills "$work/G6_$t.ptx" sm_80
  else
    check "G6 $t compiles for cuda" false
  fi
done
if "$texc" "$dir/stdlib_tc_batch_ragged_k.tex" --target cuda --knob BMMG_TC=1 --emit ptx -o "$work/batch_ragged_k" > /dev/null 2>&1; then
  check "batch_matmul BMMG_TC=1 with K = 45: B's rows past K zero-filled 16 bytes at a time" \
    grep -q "cp\.async\.cg\.shared\.global \[%rd[0-9]*\], \[%rd[0-9]*\], 16, %r[0-9]*;" "$work/batch_ragged_k.ptx"
  [ -n "$ptxas" ] && check "batch_matmul BMMG_TC=1 with K = 45: ptxas sm_80, no spills" ptx_no_spills "$work/batch_ragged_k.ptx" sm_80
else
  check "batch_matmul BMMG_TC=1 with K = 45 compiles for cuda" false
fi

# one block along M (blockIdx.y is 0) and ragged columns: matmul, batch_matmul (f16 by default above)
check "stdlib_tc_one_block_row.tex with MMG_TC=1 BMMG_TC=1 on cuda-interp" \
  "$texc" run "$dir/stdlib_tc_one_block_row.tex" --target cuda-interp --knob MMG_TC=1 --knob MMG_WN=1 --knob BMMG_TC=1 --knob BMMG_WN=1

# nn.conv2d on the tensor cores (CVG_TC): 40 channels and 18 columns, neither dividing the tiles, stride 2
for knobs in "CVG_TC=1" "CVG_TC=2 CVG_TOX=8"; do
  run_knobs "nn.conv2d $knobs on cuda-interp" "$dir/stdlib_conv_tc.tex" "$knobs"
done
for w in "C2 16" "C4 16" "C6 16" "C9 8"; do
  read -r c tox <<<"$w"
  if "$texc" "$root/bench/texc_workloads/$c.tex" --target cuda --knob CVG_TC=1 --knob CVG_TOX="$tox" --emit ptx -o "$work/$c" > /dev/null 2>&1; then
    check "$c with CVG_TC=1 CVG_TOX=$tox: mma.sync in its PTX" grep -q "mma\.sync\.aligned\.m16n8k8" "$work/$c.ptx"
    [ -n "$ptxas" ] && check "$c with CVG_TC=1: ptxas sm_80, no spills" ptx_no_spills "$work/$c.ptx" sm_80
  else
    check "$c with CVG_TC=1 compiles for cuda" false
  fi
done

for knobs in "BMMG_TC=1" "BMMG_TC=2 BMMG_DB=false"; do
  run_knobs "linalg.batch_matmul $knobs on cuda-interp" "$dir/stdlib_tc_batch.tex" "$knobs"
done
if "$texc" "$dir/stdlib_tc_batch.tex" --target cuda --knob BMMG_TC=1 --emit ptx -o "$work/batch" > /dev/null 2>&1; then
  check "batch_matmul BMMG_TC=1: mma.sync in its PTX" grep -q "mma\.sync\.aligned\.m16n8k8" "$work/batch.ptx"
  [ -n "$ptxas" ] && check "batch_matmul BMMG_TC=1: ptxas sm_80, no spills" ptx_no_spills "$work/batch.ptx" sm_80
else
  check "batch_matmul BMMG_TC=1 compiles for cuda" false
fi

# accuracy against f64: TF32 ~1e-4 of the terms' magnitude, 3xTF32 and f32 CUDA cores ~1e-7
if [ -n "$python" ]; then
  for v in "0 1e-6 f32-cuda-cores" "1 2e-3 tf32" "2 1e-6 3xtf32"; do
    read -r tc bound name <<<"$v"
    rm -rf "$work/io"
    "$texc" run "$stdlib" --target cuda-interp --knob MMG_TC="$tc" --knob MMG_WN=1 --save-io "$work/io" > /dev/null 2>&1
    check "linalg.matmul MMG_TC=$tc: error against f64 below $bound" error_below "$work/io" proj "$bound" X W Y "$name"
  done
  rm -rf "$work/io"
  "$texc" run "$dir/tf32.tex" --target cuda-interp --save-io "$work/io" > /dev/null 2>&1
  check "tf32.tex: TF32's error is there (above 1e-5: the operands are rounded)" \
    bash -c '! "$1" "$2" "$3" mm_tf32 A B C | awk "{ exit !(\$2 < 1e-5) }"' _ "$python" "$dir/accuracy.py" "$work/io"
else
  echo "skipped: the accuracy against f64 (no python3 with numpy)"
fi

for arch in sm_80 sm_90; do
  for f in tf32 tf32_3x; do
    if ! "$texc" "$dir/$f.tex" --target cuda --arch $arch --emit ptx -o "$work/${f}_$arch" > /dev/null 2>&1; then
      check "$f compiles for $arch" false
      continue
    fi
    ptx=$work/${f}_$arch.ptx
    check "$f $arch: mma.sync m16n8k8 tf32 and cvt.rna.tf32" \
      bash -c 'grep -q "mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32" "$1" && grep -q "cvt\.rna\.tf32\.f32" "$1"' _ "$ptx"
    [ -n "$ptxas" ] && check "$f: ptxas $arch, no spills" ptx_no_spills "$ptx" $arch
  done
done
for arch in sm_80 sm_90; do
  if "$texc" "$dir/f16.tex" --target cuda --arch $arch --emit ptx -o "$work/f16_$arch" > /dev/null 2>&1; then
    check "f16 $arch: mma.sync m16n8k16 f16 with an f32 accumulator" \
      grep -q "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32" "$work/f16_$arch.ptx"
    check "f16 $arch: A by ldmatrix x4, B (k by n) by ldmatrix x2.trans, no element loads of the tiles" \
      bash -c 'grep -q "ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16" "$1" &&
               grep -q "ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16" "$1" && ! grep -q "ld\.shared\.[bu]16" "$1"' _ "$work/f16_$arch.ptx"
    [ -n "$ptxas" ] && check "f16: ptxas $arch, no spills" ptx_no_spills "$work/f16_$arch.ptx" $arch
  else
    check "f16 compiles for $arch" false
  fi
done
for arch in sm_80 sm_90; do
  if "$texc" "$dir/bf16.tex" --target cuda --arch $arch --emit ptx -o "$work/bf16_$arch" > /dev/null 2>&1; then
    check "bf16 $arch: mma.sync m16n8k16 bf16 with an f32 accumulator" \
      grep -q "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32" "$work/bf16_$arch.ptx"
    [ -n "$ptxas" ] && check "bf16: ptxas $arch, no spills" ptx_no_spills "$work/bf16_$arch.ptx" $arch
  else
    check "bf16 compiles for $arch" false
  fi
done
if "$texc" "$root/bench/texc_workloads/bf16/G1.tex" --target cuda --emit ptx -o "$work/G1_bf16" > /dev/null 2>&1; then
  check "linalg.matmul_bf16 (G1): mma.sync m16n8k16 bf16, cp.async, ldmatrix x4 and x2.trans in its PTX" \
    half_gemm_ptx "$work/G1_bf16.ptx" bf16
  [ -n "$ptxas" ] && check "linalg.matmul_bf16 (G1): ptxas sm_80, no spills" ptx_no_spills "$work/G1_bf16.ptx" sm_80
else
  check "linalg.matmul_bf16 (G1) compiles for cuda" false
fi
# one mma per 16 x 8 x 8 step: K = 48 is 6 k steps of two n tiles per warp (the k loop unrolled)
check "tf32: 12 mma.sync (one per step), the accumulator passed to it (no additions)" \
  bash -c '[ "$(grep -c "mma\.sync" "$1")" -eq 12 ] && ! grep -q "add\.rn\.f32\|add\.f32" "$1"' _ "$work/tf32_sm_80.ptx"
check "tf32_3x: three mma.sync per step" \
  bash -c 'n=$(grep -c "mma\.sync" "$1"); [ $((n % 3)) -eq 0 ] && [ "$n" -gt 0 ]' _ "$work/tf32_3x_sm_80.ptx"
check "sm_75 is refused with a located error" \
  bash -c 'out=$("$1" "$2" --target cuda --arch sm_75 --emit ptx -o "$3/x" 2>&1); rc=$?
           [ $rc -eq 1 ] && grep -q "tf32.tex:[0-9]*:[0-9]*: error: op .mm_tf32. uses the tensor cores.*needs sm_80" <<<"$out"' \
  _ "$texc" "$dir/tf32.tex" "$work"
# G5 (1000^3: the 64 x 64 block tiles do not divide it) on the tensor cores with k tiles of 8
if "$texc" "$root/bench/texc_workloads/G5.tex" --target cuda --knob MMG_TC=1 --knob MMG_TBK=8 --emit ptx -o "$work/G5" > /dev/null 2>&1; then
  check "G5 with MMG_TC=1 MMG_TBK=8: mma.sync, cp.async and ldmatrix x4 in its PTX" \
    bash -c 'grep -q "mma\.sync\.aligned\.m16n8k8" "$1" && grep -q "cp\.async" "$1" && grep -q "ldmatrix\.sync\.aligned\.m8n8\.x4" "$1"' _ "$work/G5.ptx"
  [ -n "$ptxas" ] && check "G5 with MMG_TC=1 MMG_TBK=8: ptxas sm_80, no spills" ptx_no_spills "$work/G5.ptx" sm_80
else
  check "G5 with MMG_TC=1 MMG_TBK=8 compiles for cuda" false
fi
for g in G1 G2 G3 G4; do
  if "$texc" "$root/bench/texc_workloads/$g.tex" --target cuda --knob MMG_TC=1 --emit ptx -o "$work/$g" > /dev/null 2>&1; then
    check "$g with MMG_TC=1: mma.sync, cp.async and ldmatrix x4 (A) in its PTX" \
      bash -c 'grep -q "mma\.sync\.aligned\.m16n8k8" "$1" && grep -q "cp\.async\.cg\.shared\.global" "$1" &&
               grep -q "ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16" "$1"' _ "$work/$g.ptx"
    [ -n "$ptxas" ] && check "$g with MMG_TC=1: ptxas sm_80, no spills" ptx_no_spills "$work/$g.ptx" sm_80
  else
    check "$g with MMG_TC=1 compiles for cuda" false
  fi
  # linalg.matmul_f16 (bench/texc_workloads/f16): both tiles by ldmatrix
  if "$texc" "$root/bench/texc_workloads/f16/$g.tex" --target cuda --emit ptx -o "$work/${g}_f16" > /dev/null 2>&1; then
    check "$g f16: mma.sync m16n8k16, cp.async, ldmatrix x4 and x2.trans in its PTX" half_gemm_ptx "$work/${g}_f16.ptx" f16
    [ -n "$ptxas" ] && check "$g f16: ptxas sm_80, no spills" ptx_no_spills "$work/${g}_f16.ptx" sm_80
  else
    check "$g f16 compiles for cuda" false
  fi
done

if [ $failed -ne 0 ]; then
  echo "$failed failure(s)"
  exit 1
fi
echo "all passed"
