#!/usr/bin/env bash
# Vectorised shared-memory fills and storage_align on the GPU (docs/cuda.md, "Vectorised fills",
# "Bank conflicts"):
#   - the ops of tests/e2e/cuda_vector_fill/ run on cuda-interp against the reference (races,
#     barriers and out-of-bounds accesses checked), the stdlib ones also with MMG_VEC=4 and
#     BMMG_VEC=2 (vector code on every fill, ragged tails and unaligned rows included);
#   - fill_copy.tex's PTX has 128-bit global loads and shared stores, and its unaligned op a remark
#     at the vectorize saying how far the alignment is proven;
#   - tvm_idiom_relaxed.tex (thread relaxation, TVM's compute_at(CL, tx) idiom): the fill runs in
#     the thread loops at their indices, two barriers per k step, ptxas;
#   - storage_align.tex: the padded shared tile (allocation and indices), on interp too, and with
#     MMG_PAD=true the stdlib matmul's A tile (G4: 64 rows of 12 floats);
#   - the PTX of workloads G1-G5 (the stdlib matmul's schedule, MMG_DB=false) has ld.global.nc.v4.f32 and
#     st.shared.v4.f32, G6's (rows of 511 and 255 elements) none, and G6 with MMG_VEC=4 the
#     alignment remark; ptxas (sm_80, sm_90) reports no spills for G1-G6 ($TEXC_PTXAS,
#     /usr/local/cuda/bin/ptxas or PATH; that part is skipped without one).
#
# usage: cuda_vector_fill_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
# shellcheck source=ptx_test_setup.sh
. "$root/tests/e2e/ptx_test_setup.sh"

dir=$root/tests/e2e/cuda_vector_fill
run_dir "$dir"
check "stdlib_ragged.tex on cuda-interp, every fill vectorized" \
  "$texc" run "$dir/stdlib_ragged.tex" --target cuda-interp --knob MMG_VEC=4 --knob BMMG_VEC=2

has() { grep -qE "$2" "$1"; }
hasnt() { ! grep -qE "$2" "$1"; }
no_spills() {  # every function of the PTX: 0 bytes spilled, for sm_80 and sm_90
  ptx_no_spills "$1" sm_80 && ptx_no_spills "$1" sm_90
}

"$texc" "$dir/fill_copy.tex" --target cuda --emit ptx -o "$work/fill" --remarks > "$work/fill.remarks" 2>&1
check "fill_copy: 128-bit global loads" has "$work/fill.ptx" 'ld\.global(\.nc)?\.v4\.f32'
check "fill_copy: 128-bit shared stores" has "$work/fill.ptx" 'st\.shared\.v4\.f32'
check "fill_copy: the unaligned rows are a remark at the vectorize" \
  has "$work/fill.remarks" "fill_copy.tex:[0-9]+:[0-9]+: remark: vectorized loop 'av': its accesses to 'A' are proven only 8-byte aligned"

relaxed=$("$texc" "$dir/tvm_idiom_relaxed.tex" --target cuda-interp --op mm --emit loops -o - 2>&1)
check "thread relaxation: the fill of AS runs in the thread loops at their indices" \
  grep -q "^ *AS\[aoo\*64 + ty\*8 + tx\] = A\[" <<<"$relaxed"
check "thread relaxation: one barrier after the fills, one after the k step's reads" \
  bash -c '[ "$(grep -c "thread_barrier()" <<<"$1")" = 2 ]' _ "$relaxed"
if "$texc" "$dir/tvm_idiom_relaxed.tex" --target cuda --emit ptx -o "$work/relaxed" > /dev/null 2>&1; then
  [ -n "$ptxas" ] && check "thread relaxation: ptxas sm_80 and sm_90" no_spills "$work/relaxed.ptx"
else
  check "tvm_idiom_relaxed.tex compiles for cuda" false
fi

sa_loops=$("$texc" "$dir/storage_align.tex" --target cuda-interp --emit loops -o - 2>&1)
check "storage_align: the tile is allocated with rows of 33 floats" grep -q "allocate AS: f32\[528\] shared" <<<"$sa_loops"
check "storage_align: the fill and the column reads index rows 33 apart" \
  bash -c 'grep -q "AS\[ay\*33 + ax\] = " <<<"$1" && grep -q "= AS\[ii\*33 + jj\]" <<<"$1"' _ "$sa_loops"
check "storage_align.tex on interp (the padding on a CPU target)" "$texc" run "$dir/storage_align.tex" --target interp
if "$texc" "$dir/storage_align.tex" --target cuda --emit ptx -o "$work/sa" > /dev/null 2>&1; then
  [ -n "$ptxas" ] && check "storage_align: ptxas sm_80 and sm_90" no_spills "$work/sa.ptx"
else
  check "storage_align.tex compiles for cuda" false
fi
"$texc" "$root/bench/texc_workloads/G4.tex" --target cuda-interp --emit loops -o - --knob MMG_PAD=true --knob MMG_DB=false > "$work/G4pad" 2>&1
check "G4 with MMG_PAD=true: the A tile's rows are 12 floats apart" grep -q "allocate C_mm_AS: f32\[768\] shared" "$work/G4pad"
check "stdlib_ragged.tex on cuda-interp with the A tile padded" \
  "$texc" run "$dir/stdlib_ragged.tex" --target cuda-interp --knob MMG_PAD=true --knob BMMG_PAD=true --knob MMG_VEC=4

for g in G1 G2 G3 G4 G5 G6; do
  # The fills as loads and stores (MMG_DB=false); by default they are 16-byte cp.async copies (the
  # double-buffered pipeline, tests/e2e/cuda_double_buffer_test.sh).
  "$texc" "$root/bench/texc_workloads/$g.tex" --target cuda --emit ptx -o "$work/$g" --knob MMG_DB=false > /dev/null 2>&1 ||
    { check "$g compiles for cuda" false; continue; }
  if [ $g != G6 ]; then
    check "$g: ld.global.v4.f32 in the fills" has "$work/$g.ptx" 'ld\.global(\.nc)?\.v4\.f32'
    check "$g: st.shared.v4.f32 in the fills" has "$work/$g.ptx" 'st\.shared\.v4\.f32'
    "$texc" "$root/bench/texc_workloads/$g.tex" --target cuda --emit ptx -o "$work/$g-default" > /dev/null 2>&1
    check "$g by default: 16-byte cp.async fills" has "$work/$g-default.ptx" 'cp\.async\.cg\.shared\.global.*, 16;'
  else
    check "G6 (rows of 511 and 255): no 128-bit global loads by default" hasnt "$work/$g.ptx" 'ld\.global(\.nc)?\.v4\.f32'
  fi
  [ -n "$ptxas" ] && check "$g: ptxas sm_80 and sm_90, no spills" no_spills "$work/$g.ptx"
done
"$texc" "$root/bench/texc_workloads/G6.tex" --target cuda --emit ptx -o "$work/G6v" --remarks --knob MMG_VEC=4 > "$work/G6v.remarks" 2>&1
check "G6 with MMG_VEC=4: the alignment remark for A" \
  has "$work/G6v.remarks" "remark: vectorized loop 'C_mm_av': its accesses to 'A' are proven only 4-byte aligned"

if [ $failed -ne 0 ]; then
  echo "$failed failure(s)"
  exit 1
fi
echo "all passed"
