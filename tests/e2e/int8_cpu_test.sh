#!/usr/bin/env bash
# int8 on CPUs through `lower llvm` intrinsics (docs/language.md "Tensorize", stdlib nn.int8_cpu):
#  - interp: the tensorized ops run (the loop interpreter runs the loops the pattern matched);
#  - x86 (when the CPU has avx512_vnni): dense_u8s8, conv2d_u8s8 and the accumulator ops run through vpdpbusd,
#    checked against the reference interpreter, and the assembly has vpdpbusd; with
#    --mattr -avx512vnni a clear error (exit 1), not a crash;
#  - arm (when qemu-aarch64 runs): dense_s8s8 and conv2d_s8s8 through sdot with --mattr +dotprod, its assembly has
#    sdot; without +dotprod a clear error;
#  - an intrinsic LLVM does not have, and operands that do not fit its arguments: errors (exit 1).
# The ops come from tests/stdlib/int8_cpu.tex, the intrinsic cases from tests/e2e/int8_cpu/.
# usage: int8_cpu_test.sh TEXC REPO_ROOT
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
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

if grep -q avx512_vnni /proc/cpuinfo; then
  expect 0 'PASS' -- run acc.tex --target x86
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target x86 --op dense_u8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target x86 --op dense_u8s8_typical
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target x86 --op conv2d_u8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target x86 --op conv2d_u8s8_typical
  expect 0 'vpdpbusd' -- ../../stdlib/int8_cpu.tex --target x86 --op conv2d_u8s8_small --emit asm -o -
  expect 0 'vpdpbusd' -- ../../stdlib/int8_cpu.tex --target x86 --op dense_u8s8_small --emit asm -o -
else
  echo "skip: this CPU has no avx512_vnni (x86 runs of vpdpbusd)"
fi
expect 1 'LLVM cannot generate code for .*-avx512vnni.*lacks the instruction of the tensorized LLVM intrinsic' -- \
  ../../stdlib/int8_cpu.tex --target x86 --op dense_u8s8_small --mattr -avx512vnni --emit obj -o /dev/null
expect 1 "op 'f' tensorizes with the LLVM intrinsic 'llvm.x86.avx512.vpdpbusd.511': LLVM 19 has no intrinsic of that name" -- \
  bad_name.tex --target x86 --emit obj -o /dev/null
expect 1 "returns 64 bytes but the output's region is 32 bytes" -- bad_size.tex --target x86 --emit obj -o /dev/null

expect 0 'sdot' -- ../../stdlib/int8_cpu.tex --target arm --op dense_s8s8_small --mattr +dotprod --emit asm -o -
expect 0 'sdot' -- ../../stdlib/int8_cpu.tex --target arm --op conv2d_s8s8_small --mattr +dotprod --emit asm -o -
expect 1 'LLVM cannot generate code for target arm.*lacks the instruction of the tensorized LLVM intrinsic' -- \
  ../../stdlib/int8_cpu.tex --target arm --op dense_s8s8_small --emit obj -o /dev/null
if command -v qemu-aarch64 >/dev/null; then
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op dense_s8s8_small --mattr +dotprod
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op dense_u8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op conv2d_u8s8_small
  expect 0 'PASS' -- run ../../stdlib/int8_cpu.tex --target arm --op conv2d_s8s8_small --mattr +dotprod
else
  echo "skip: no qemu-aarch64 (arm runs)"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
