#!/usr/bin/env bash
# vdla.gemm is the GEMM micro-op of the accelerator being compiled for (backends/vdla/VdlaIntrinsics.h):
# its block follows --vdla-config. A dense layer on 8-lane tiles (and one of 32 reduction lanes by
# 16 output lanes) tensorized with vdla.gemm runs on a simulator of that block, checked bit for bit
# against the reference interpreter, and its program (with GEMM instructions) names that block; the
# same op for the spec's 16 x 16 block is a located tensorize mismatch. With batch 2 the micro-op
# takes two rows.
# usage: vdla_block_test.sh TEXC
set -u
texc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# dense IN OUT: an op on tiles of OUT output lanes by IN reduction lanes (tests/vdla/alu_two_tiles.tex's schedule).
dense() {
  cat <<TEX
op dense_vdla(X: i8[3, 2, $1], W: i8[2, 2, $2, $1]) -> Y {
  compute {
    Acc[m, nb, no: $2] = sum(i32(X[m, kb, ki]) * i32(W[nb, kb, no, ki]) for kb in 0..2, ki in 0..$1)
    Y[m, nb, no] = i8(min(max(Acc[m, nb, no] >> 6, -128), 127))
  }
  schedule vdla {
    AccL = cache_write(Acc, vdla.acc)
    inline(Acc)
    compute_at(AccL, Y.nb)
    reorder(AccL.kb, AccL.no, AccL.ki)
    XL = cache_read(X, vdla.inp, AccL)
    WL = cache_read(W, vdla.wgt, AccL)
    compute_at(XL, AccL.kb)
    compute_at(WL, AccL.kb)
    tensorize(AccL.no, vdla.gemm)
  }
}
TEX
}

# IN OUT [BUFFERS]: the 8 x 8 accelerator has smaller buffers than the spec, so that their depths
# (rows, tiles) still fit the instructions' fields.
for shape in "8 8 , \"inp_buffer_bytes\": 16384, \"wgt_buffer_bytes\": 65536, \"acc_buffer_bytes\": 65536" "32 16"; do
  in=${shape%% *}
  rest=${shape#* }
  out=${rest%% *}
  buffers=${rest#"$out"}
  name=block_${in}x${out}
  dense "$in" "$out" >"$work/$name.tex"
  echo "{\"block_in\": $in, \"block_out\": $out$buffers}" >"$work/$name.json"
  run=$("$texc" run "$work/$name.tex" --target vdla --vdla-config "$work/$name.json" 2>&1)
  echo "$run"
  grep -qE '^dense_vdla +vdla +PASS ' <<<"$run" || fail "$name: not run correctly on a VDLA of that block"
  "$texc" "$work/$name.tex" --target vdla --vdla-config "$work/$name.json" --emit vdla -o "$work/$name.vdla" ||
    fail "$name: not compiled"
  # The program is one for that accelerator, its GEMMs on the configuration's micro-op.
  grep -qE "^# configuration: batch=1 block_in=$in block_out=$out " "$work/$name.vdla.txt" ||
    fail "$name: the program's listing does not name block_in=$in block_out=$out"
  grep -qE "COMPUTE +GEMM +uops=" "$work/$name.vdla.txt" || fail "$name: no GEMM instruction in the program"
  # The spec's 16 x 16 micro-op does not match these tiles: a located diagnostic at the tensorize.
  err=$("$texc" "$work/$name.tex" --target vdla --emit vdla -o "$work/spec.vdla" 2>&1)
  rc=$?
  echo "$err" | head -n 3
  [ $rc -eq 1 ] || fail "$name with the spec's block: exit $rc (expected 1)"
  grep -qE "^$work/$name.tex:15:5: error: cannot tensorize loop 'AccL.no' with 'vdla.gemm': " <<<"$err" ||
    fail "$name with the spec's block: no tensorize mismatch at the tensorize"
  grep -q "internal error" <<<"$err" && fail "$name: internal error"
done

# batch 2: vdla.gemm gains a row axis (acc[b, j] += inp[b, k] * wgt[j, k]); two rows of the input
# and of the accumulator, adjacent in their layouts, are one micro-op.
cat >"$work/batch2.tex" <<'TEX'
op dense_vdla(X: i8[2, 4, 16], W: i8[2, 2, 16, 16]) -> Y {
  compute {
    Acc[nb, m, no: 16] = sum(i32(X[kb, m, ki]) * i32(W[nb, kb, no, ki]) for kb in 0..2, ki in 0..16)
    Y[nb, m, no] = i8(min(max(Acc[nb, m, no] >> 6, -128), 127))
  }
  schedule vdla {
    mo, mi = split(Y.m, 2)
    AccL = cache_write(Acc, vdla.acc)
    inline(Acc)
    compute_at(AccL, mo)
    reorder(AccL.kb, AccL.m, AccL.no, AccL.ki)
    XL = cache_read(X, vdla.inp, AccL)
    WL = cache_read(W, vdla.wgt, AccL)
    compute_at(XL, AccL.kb)
    compute_at(WL, AccL.kb)
    tensorize(AccL.m, vdla.gemm)
  }
}
TEX
echo '{"batch": 2}' >"$work/batch2.json"
run=$("$texc" run "$work/batch2.tex" --target vdla --vdla-config "$work/batch2.json" 2>&1)
echo "$run"
grep -qE '^dense_vdla +vdla +PASS ' <<<"$run" || fail "batch2: not run correctly on a VDLA of batch 2"
err=$("$texc" "$work/batch2.tex" --target vdla --emit vdla -o "$work/spec.vdla" 2>&1)
grep -qE "^$work/batch2.tex:16:5: error: cannot tensorize loop 'AccL.m' with 'vdla.gemm': " <<<"$err" ||
  fail "batch2 with the spec's batch of 1: no tensorize mismatch at the tensorize: $err"
[ $failures -eq 0 ] && echo "vdla block: all passed"
[ $failures -eq 0 ]
