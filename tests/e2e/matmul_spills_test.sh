#!/usr/bin/env bash
# The register tiles of the stdlib matmul (and conv2d_blocked, below) stay in registers with their default knobs (issue 27): for the
# GEMM workloads G1-G6 (bench/texc_workloads), compiled with `--emit asm` for x86-64-v3 (AVX2, 16
# ymm registers) and skylake-avx512 (32 zmm), no innermost loop with FMAs loads or stores a vector
# register from the stack (asm_loop_spills.py). The defaults of before (a 12 x 32 tile everywhere:
# 24 ymm accumulators in 16 registers) spilled 69-708 times per k loop on x86-64-v3.
# Not yet: G6 on x86-64-v3 (N = 255 = 10 x 24 + 15) computes its last 15 columns as 15-lane vectors,
# which LLVM widens to two ymm per row and spills (vectorize_loops splits only vectors of more than
# 16 lanes); there only the steady micro-kernel (the loops with the most FMAs) is checked.
# Also nn.conv2d's blocked kernel (conv2d_blocked) on the ResNet-18 layers it runs (C1, C2, C4, C6,
# C7, C9, C10, C12): 4 columns x one 16-channel vector on 16 registers (8 ymm accumulators); its
# 4 x 4 and 7 x 2 of before kept 32 and 28 ymm accumulators and spilled 44-54 times per reduction
# loop. Not yet: the layers that run other schedules (C3, C5, C8, C11), and C9 on skylake-avx512
# (its 7 x 2-vector tile, 14 zmm accumulators, spills 2-7 per loop there; the AVX-512 code is kept
# byte-identical in this change, so it is not checked).
# The 1x1 convolutions (nn.conv2d_1x1: C3, C5, C8, C11), whose 6 x 64-point tile (48 ymm
# accumulators on AVX2) is sized by the target now (6 x 16 there), and the depthwise kernel's
# 2-row tiles (D1, D2). Not yet: C11 on x86-64-v3, whose tail tile of the F = 512 channels (512 =
# 85 x 6 + 2) spills twice in two of its loops; and C5 on skylake-avx512 since conv2d_1x1 reads
# its weights packed 6 channels at a time (Wp, issue 31): a tail loop of 16 FMAs spills 4 times,
# so there only the steady micro-kernel (the loops with the most FMAs) is checked.
# usage: matmul_spills_test.sh TEXC REPO_ROOT
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
export TEXC_STDLIB="$root/stdlib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
for mcpu in x86-64-v3 skylake-avx512; do
  for g in G1 G2 G3 G4 G5 G6 C1 C2 C4 C6 C7 C9 C10 C12 C3 C5 C8 C11 D1 D2; do
    [ "$g-$mcpu" = C9-skylake-avx512 ] && continue
    [ "$g-$mcpu" = C11-x86-64-v3 ] && continue
    asm=$tmp/$g-$mcpu.s
    if ! "$texc" "$root/bench/texc_workloads/$g.tex" --target x86 --mcpu "$mcpu" --no-records --emit asm -o "$asm" 2>"$tmp/err"; then
      echo "FAIL: $g --mcpu $mcpu does not compile:"; sed 's/^/    /' "$tmp/err"
      failures=$((failures + 1))
      continue
    fi
    steady=()
    [ "$g-$mcpu" = G6-x86-64-v3 ] && steady=(--steady)
    [ "$g-$mcpu" = C5-skylake-avx512 ] && steady=(--steady)
    if out=$(python3 "$root/tests/e2e/asm_loop_spills.py" "${steady[@]}" "$asm"); then
      echo "ok: $g --mcpu $mcpu: no spills in its FMA loops"
    else
      echo "FAIL: $g --mcpu $mcpu spills in an FMA loop:"; sed 's/^/    /' <<<"$out"
      failures=$((failures + 1))
    fi
  done
done
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
