#!/usr/bin/env bash
# Split-K: a reduction loop bound to blockIdx.* (docs/cuda.md, "Split-K: reductions across
# blocks"; lower/gpu/CrossBlockReduction.h), without a GPU:
#   - tests/e2e/cuda_split_k/*.tex (a register tile, the output as accumulator, an i32 sum; ragged
#     in M, N and K) and the stdlib matmul on ragged shapes (G6's 127x255x511 among them) with
#     MMG_SPLITK=4 and 16 (and with the fills vectorized, double buffering off) pass on cuda-interp
#     against the reference, its race detector on;
#   - the lowered loops: blockIdx.z outermost, the write-back an atomic_add, no init of the output;
#   - the PTX for sm_80 and sm_90 has atom/red.global.add.f32 (.u32/.s32 for the i32 sum) and ptxas
#     assembles it; G6 with MMG_SPLITK=4 too; the default knobs make no atomics;
#   - the header says the output is zeroed; through the recording libcuda.so.1 stand-in
#     (fake_libcuda.c), `texc run --target cuda` zeroes C (cuMemsetD32Async, its device address,
#     67*45 words) before each of its launches, and mm.o's host function mm() does the same before its
#     launch (cuda_launch_driver.c, libtexrt.a).
#
# usage: cuda_split_k_test.sh TEXC REPO_ROOT SHIM_DIR [LIBTEXRT_A [EXTRA_LINK_FLAGS]]
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
shim_dir=$(realpath "$3")
texrt=${4:+$(realpath "$4")}
link_flags=${5:-}
# shellcheck source=ptx_test_setup.sh
. "$root/tests/e2e/ptx_test_setup.sh"
dir=$root/tests/e2e/cuda_split_k
ragged=$root/tests/e2e/cuda_vector_fill/stdlib_ragged.tex

run_dir "$dir"
check "stdlib ragged shapes with MMG_SPLITK=4 on cuda-interp" "$texc" run "$ragged" --target cuda-interp --knob MMG_SPLITK=4
check "stdlib ragged shapes with MMG_SPLITK=16, MMG_VEC=4, MMG_DB=false on cuda-interp" \
  "$texc" run "$ragged" --target cuda-interp --knob MMG_SPLITK=16 --knob MMG_VEC=4 --knob MMG_DB=false

loops=$("$texc" "$dir/mm.tex" --target cuda-interp --emit loops -o - 2>&1)
check "blockIdx.z is the kernel's outermost loop" bash -c 'sed -n 2p <<<"$1" | grep -q "^  bound(blockIdx.z) ks in 0..3 {"' _ "$loops"
check "the write-back adds into C atomically" grep -q "atomic_add(C\[by\*720 + ty\*90 + yi\*45 + bx\*16 + tx\*2 + xi\], CL\[yi\*2 + xi\])" <<<"$loops"
loops=$("$texc" "$dir/mv_direct.tex" --target cuda-interp --emit loops -o - 2>&1)
check "the output as accumulator: each term an atomic add, no init" \
  bash -c 'grep -q "atomic_add(y\[io\*16 + ii\], " <<<"$1" && ! grep -q "y\[.*\] = 0.0f" <<<"$1"' _ "$loops"

for arch in sm_80 sm_90; do
  for f in mm mv_direct isum; do
    if ! "$texc" "$dir/$f.tex" --target cuda --arch $arch --emit ptx -o "$work/${f}_$arch" > /dev/null 2>&1; then
      check "$f compiles for $arch" false
      continue
    fi
    ptx=$work/${f}_$arch.ptx
    if [ $f = isum ]; then
      check "$f, $arch: 32-bit integer atomic adds" grep -Eq "(atom|red)\.global\.add\.[us]32" "$ptx"
    else
      check "$f, $arch: f32 atomic adds" grep -Eq "(atom|red)\.global\.add\.f32" "$ptx"
    fi
    [ -n "$ptxas" ] && check "$f: ptxas $arch" "$ptxas" -arch=$arch "$ptx" -o "$work/x.cubin"
  done
done
if "$texc" "$root/bench/texc_workloads/G6.tex" --target cuda --knob MMG_SPLITK=4 --emit ptx,header -o "$work/G6" > /dev/null 2>&1; then
  check "G6 with MMG_SPLITK=4: atomic adds in its PTX" grep -Eq "(atom|red)\.global\.add\.f32" "$work/G6.ptx"
  check "G6 with MMG_SPLITK=4: 4 blocks along z" grep -q "^//   launch: .*blockIdx.z=4 " "$work/G6.h"
  check "G6 with MMG_SPLITK=4: the header says C is zeroed" grep -q "^//   Zeroes C before the launch" "$work/G6.h"
  # ptxas assembles it (sm_80: 96 registers and an 8-byte spill, where the default G6 kernel
  # uses 109 and none; MMG_SPLITK=8, or MMG_DB=false, spills nothing: docs/cuda.md, "Split-K").
  [ -n "$ptxas" ] && check "G6 with MMG_SPLITK=4: ptxas sm_80 and sm_90" \
    bash -c '"$1" -arch=sm_80 "$2" -o "$3" && "$1" -arch=sm_90 "$2" -o "$3"' _ "$ptxas" "$work/G6.ptx" "$work/x.cubin"
else
  check "G6 with MMG_SPLITK=4 compiles for cuda" false
fi
"$texc" "$root/bench/texc_workloads/G6.tex" --target cuda --emit ptx,header -o "$work/G6_default" > /dev/null 2>&1
check "G6 with the default knobs: no atomics, nothing zeroed" \
  bash -c '! grep -Eq "(atom|red)\.global\.add" "$1.ptx" && ! grep -q "Zeroes" "$1.h"' _ "$work/G6_default"

# The host zeroes C before each launch (recording stand-in for libcuda.so.1: computes nothing).
export LD_LIBRARY_PATH="$shim_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TEXC_FAKE_CUDA_LOG=$work/calls.log
rm -f "$work/calls.log"
"$texc" run "$dir/mm.tex" --target cuda --repeat 2 --check none > "$work/run.out" 2>&1
check "texc run --target cuda through the stand-in" grep -q "PASS" "$work/run.out"
c_pointer=$(grep '^cuMemAlloc_v2' "$work/calls.log" | sed -n '3s/.* -> //p')
check "texc run: C (the third allocation, $c_pointer) zeroed, 3015 words, before each of the 3 launches" \
  test "$(grep -E '^(cuMemsetD32Async|cuLaunchKernel)' "$work/calls.log" | sed -E 's/^(cuMemsetD32Async [^ ]+ value=0 count=3015|cuLaunchKernel).*/\1/' | tr '\n' ';')" = \
  "cuMemsetD32Async $c_pointer value=0 count=3015;cuLaunchKernel;cuMemsetD32Async $c_pointer value=0 count=3015;cuLaunchKernel;cuMemsetD32Async $c_pointer value=0 count=3015;cuLaunchKernel;"
cc=${CC:-cc}
if [ -n "$texrt" ] && command -v "$cc" > /dev/null; then
  "$texc" "$dir/mm.tex" --target cuda -o "$work/mm" > /dev/null 2>&1
  if (cd "$work" && "$cc" -std=c99 -Wall -Werror -I. "$root/tests/e2e/cuda_launch_driver.c" mm.o "$texrt" \
      -lstdc++ -lpthread -ldl -lm $link_flags -o driver 2> cc.log); then
    rm -f "$work/calls.log"
    out=$("$work/driver" 2>&1)
    check "mm.o's mm() returns 0 ($out)" test "$out" = "0 success"
    check "mm.o's mm() zeroes C (0xc0000000, 3015 words) and then launches" \
      test "$(grep -E '^(cuMemsetD32Async|cuLaunchKernel)' "$work/calls.log" | cut -d' ' -f1-4 | tr '\n' ';')" = \
      "cuMemsetD32Async 0xc0000000 value=0 count=3015;cuLaunchKernel grid=3x5x3 block=8x8x1 shared=0;"
  else
    check "cuda_launch_driver.c builds with mm.o" false
    sed 's/^/    /' "$work/cc.log"
  fi
else
  echo "skip: the host object (no libtexrt.a or C compiler)"
fi

if [ $failed -ne 0 ]; then
  echo "$failed failure(s)"
  exit 1
fi
echo "all passed"
