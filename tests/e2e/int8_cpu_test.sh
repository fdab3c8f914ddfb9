#!/usr/bin/env bash
# int8 on CPUs through `lower llvm` intrinsics (docs/language.md "Tensorize", stdlib nn.int8_cpu):
#  - interp: the tensorized ops run (the loop interpreter runs the loops the pattern matched);
#  - x86 (when the CPU has avx512_vnni): dense_u8s8, conv2d_u8s8 and the accumulator ops run through vpdpbusd,
#    checked against the reference interpreter, and the assembly has vpdpbusd;
#  - x86 without avx512vnni (the host's CPU, --mattr -avx512vnni, or MCPU): the imported ops fall back to
#    their portable schedules with a remark (language.md "Tensorize") and pass; a tensorize the user
#    forced (--knob D8X_VNNI=true) is an error naming the feature; an intrinsic declared without
#    `requires` is LLVM's error naming the intrinsic (exit 1), never a crash;
#  - arm (when qemu-aarch64 runs): dense_s8s8 and conv2d_s8s8 through sdot with --mattr +dotprod, its assembly has
#    sdot; without +dotprod the portable schedule, with a remark;
#  - an intrinsic LLVM does not have, and operands that do not fit its arguments: errors (exit 1).
# The ops come from tests/stdlib/int8_cpu.tex, the intrinsic cases from tests/e2e/int8_cpu/.
# With MCPU (x86-64-v3, x86-64-v2: CPUs without AVX-512), every x86 command compiles for it, as on a
# host without AVX-512 (ctest e2e_int8_cpu_x86-64-v3, ..._v2).
# usage: int8_cpu_test.sh TEXC REPO_ROOT [MCPU]
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
mcpu=${3:-}
x86=(--target x86)
[ -n "$mcpu" ] && x86=(--target x86 --mcpu "$mcpu")
dir=$root/tests/e2e/int8_cpu
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
cd "$dir" || exit 2

expect 0 'PASS' -- run acc.tex --target interp
expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target interp --op dense_u8s8_small
expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target interp --op dense_s8s8_small
expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target interp --op conv2d_u8s8_small
expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target interp --op conv2d_s8s8_small

if [ -z "$mcpu" ] && grep -q avx512_vnni /proc/cpuinfo; then
  expect 0 'PASS' -- run acc.tex --target x86
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target x86 --op dense_u8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target x86 --op dense_u8s8_typical
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target x86 --op conv2d_u8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target x86 --op conv2d_u8s8_typical
  expect 0 'vpdpbusd' -- ../../stdlib/int8_cpu.tex --target x86 --op conv2d_u8s8_small --emit asm -o -
  expect 0 'vpdpbusd' -- ../../stdlib/int8_cpu.tex --target x86 --op dense_u8s8_small --emit asm -o -
  no_vnni=(--target x86 --mattr -avx512vnni)
else
  echo "x86 without avx512vnni: ${x86[*]}"
  no_vnni=("${x86[@]}")
fi
# Without avx512vnni: dense_u8s8 takes D8X_VNNI = false, conv2d_u8s8 its `schedule cpu`; both pass.
lacks="left out: target x86 .*lacks avx512vnni.*which 'llvm.x86.avx512.vpdpbusd.512' requires"
expect 0 "int8_cpu.tex:64:25: remark: tensorize with 'vnni_u8s8_16x4' $lacks; the schedule runs with knob D8X_VNNI = false" -- \
  run ../../stdlib/int8_cpu.tex "${no_vnni[@]}" --op dense_u8s8_small --remarks
expect 0 "remark: tensorize with 'vnni_u8s8_16x4' $lacks; the imported op runs with its .schedule cpu. block instead of its .schedule x86. block" -- \
  run ../../stdlib/int8_cpu.tex "${no_vnni[@]}" --op conv2d_u8s8_small --remarks
for op in dense_u8s8_typical conv2d_u8s8_rows_small conv2d_u8s8_1x1_small conv2d_u8s8_nopad_small; do
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex "${no_vnni[@]}" --op $op
done
if "$texc" ../../stdlib/int8_cpu.tex "${no_vnni[@]}" --op conv2d_u8s8_small --emit asm -o - 2>&1 | grep -q vpdpbusd; then
  echo "FAIL: the assembly of conv2d_u8s8_small for ${no_vnni[*]} has vpdpbusd"
  failures=$((failures + 1))
fi
# The user forced the instruction: a located error naming the feature, exit 1.
expect 1 "int8_cpu.tex:64:25: error: cannot tensorize with 'vnni_u8s8_16x4' on target x86 .*: the CPU lacks avx512vnni.*--mattr \\+avx512vnni" -- \
  ../../stdlib/int8_cpu.tex "${no_vnni[@]}" --op dense_u8s8_small --knob D8X_VNNI=true --emit obj -o /dev/null
# An intrinsic declared without `requires`: LLVM's instruction selection fails; texc names the
# intrinsic (exit 1), no LLVM dump.
expect 1 "^texc: error: LLVM cannot generate code for .*lacks the instruction of the tensorized LLVM intrinsic 'llvm.x86.avx512.vpdpbusd.512' \\(LLVM: .*\\);.*requires" -- \
  acc.tex "${no_vnni[@]}" --emit obj -o /dev/null
expect 1 "op 'f' tensorizes with the LLVM intrinsic 'llvm.x86.avx512.vpdpbusd.511': LLVM 19 has no intrinsic of that name" -- \
  bad_name.tex --target x86 --emit obj -o /dev/null
expect 1 "returns 64 bytes but the output's region is 32 bytes" -- bad_size.tex --target x86 --emit obj -o /dev/null

expect 0 'sdot' -- ../../stdlib/int8_cpu.tex --target arm --op dense_s8s8_small --mattr +dotprod --emit asm -o -
expect 0 'sdot' -- ../../stdlib/int8_cpu.tex --target arm --op conv2d_s8s8_small --mattr +dotprod --emit asm -o -
expect 0 "remark: tensorize with 'sdot_s8s8_4x4' left out: target arm \\(CPU generic\\) lacks dotprod.*the imported op runs with its .schedule cpu. block" -- \
  ../../stdlib/int8_cpu.tex --target arm --op dense_s8s8_small --remarks --emit obj -o /dev/null
if command -v qemu-aarch64 >/dev/null; then
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op dense_s8s8_small --mattr +dotprod
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op dense_s8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op dense_u8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op conv2d_u8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op conv2d_s8s8_small --mattr +dotprod
else
  echo "skip: no qemu-aarch64 (arm runs)"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
