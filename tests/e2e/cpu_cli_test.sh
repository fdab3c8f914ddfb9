#!/usr/bin/env bash
# Checks the code-generating half of the texc command line (docs/cli.md) for the
# CPU targets: every --emit output of x86 and arm and what is in it, the default output stem, a bad
# --mcpu (exit 1), --time-compile, `texc run --target x86` (JIT: --json, --threads,
# TEXC_NUM_THREADS), `texc run --target arm` (emulated timing label; a missing aarch64 runtime is
# exit 2), extern functions of a tensorized op (--extern-src, --extern-lib, none given: exit 1),
# cuda/vdla exit codes, the host as default target, -o NAME.o and -o -, the header's shape macros, bind
# on a CPU, and --knob.
# usage: cpu_cli_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
case "$texc" in */*) texc=$(cd "$(dirname "$texc")" && pwd)/$(basename "$texc") ;; esac
matmul=$root/examples/02_matmul.tex
intrinsic=$root/examples/05_intrinsic.tex
dot16=$root/examples/05_intrinsic_dot16.c
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

# check DESCRIPTION COMMAND...: a shell check that must succeed.
check() {
  local what=$1
  shift
  if "$@" >/dev/null 2>&1; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

small="-D M=40 -D N=72 -D K=24"

# Every output kind of x86, into one stem; the object holds the op, the header declares it.
expect 0 '' -- "$matmul" --target x86 $small -o "$work/mm" --emit obj,header,llvm,asm,loops
for ext in o h ll s loops.txt; do check "x86 wrote mm.$ext" test -s "$work/mm.$ext"; done
check "mm.o is an x86-64 ELF object" grep -q 'ELF 64-bit LSB relocatable, x86-64' <(file "$work/mm.o")
check "mm.o defines matmul" grep -qE ' T matmul$' <(nm "$work/mm.o")
check "mm.h declares matmul with const inputs" grep -qE 'void matmul\(const float\* A, const float\* B, float\* C\)' "$work/mm.h"
check "mm.h documents shapes" grep -qE 'A: f32\[40, 24\] \(input\)' "$work/mm.h"
check "mm.ll defines matmul" grep -q 'define .*@matmul(' "$work/mm.ll"
check "mm.s has the symbol" grep -qE '^matmul:' "$work/mm.s"
check "mm.loops.txt has the loops" grep -q 'func matmul(' "$work/mm.loops.txt"

# Default: obj and header, stem of the input file in the current directory.
(cd "$work" && "$texc" "$matmul" --target x86 $small) || { echo "FAIL: default outputs"; failures=$((failures + 1)); }
check "default stem 02_matmul.o" test -s "$work/02_matmul.o"
check "default stem 02_matmul.h" test -s "$work/02_matmul.h"
check "no .ll by default" test ! -e "$work/02_matmul.ll"

# arm: an aarch64 object, a given CPU.
expect 0 '' -- "$matmul" --target arm $small --mcpu cortex-a53 -o "$work/arm" --emit obj,asm
check "arm.o is an aarch64 object" grep -q 'ARM aarch64' <(file "$work/arm.o")
check "arm.s uses NEON registers" grep -qE 'v[0-9]+\.4s' "$work/arm.s"
expect 0 '' -- "$matmul" --target host $small -o "$work/host"
check "--target host is x86" grep -q 'x86-64' <(file "$work/host.o")

# Without --target: the host (x86 here, arm on aarch64).
host=x86 host_elf=x86-64
[ "$(uname -m)" = aarch64 ] && host=arm host_elf=aarch64
expect 0 '' -- "$matmul" $small -o "$work/default_target"
check "no --target compiles for the host" grep -q "$host_elf" <(file "$work/default_target.o")
expect 0 "^matmul +$host +PASS" -- run "$matmul" $small --repeat 1

# -o NAME with an output's extension takes the name as given; -o - sends one text output to stdout.
expect 0 '' -- "$matmul" --target x86 $small -o "$work/given.o"
check "-o given.o writes given.o" test -s "$work/given.o"
check "-o given.o writes given.h beside it" test -s "$work/given.h"
check "-o given.o writes no given.o.o" test ! -e "$work/given.o.o"
expect 0 '' -- "$matmul" --target x86 $small --emit llvm -o "$work/only.ll"
check "-o only.ll --emit llvm writes only.ll" test -s "$work/only.ll"
expect 0 '^void matmul\(const float\* A, const float\* B, float\* C\);' -- "$matmul" --target x86 $small --emit header -o -
expect 0 '^matmul:' -- "$matmul" --target x86 $small --emit asm -o -
expect 1 "-o - writes one text output to stdout, but the outputs are 'obj,header'" -- "$matmul" --target x86 $small -o -
expect 1 "-o - writes one text output to stdout, but the outputs are 'obj'" -- "$matmul" --target x86 $small --emit obj -o -

# The header #defines every argument's shape; a C program compiles against it.
cat >"$work/shapes.c" <<'C'
#include "mm.h"
_Static_assert(MATMUL_A_RANK == 2 && MATMUL_A_DIM0 == 40 && MATMUL_A_DIM1 == 24, "A is f32[40, 24]");
_Static_assert(MATMUL_B_DIM0 == 24 && MATMUL_B_DIM1 == 72 && MATMUL_B_SIZE == 24 * 72, "B is f32[24, 72]");
_Static_assert(MATMUL_C_SIZE == 40 * 72, "C is f32[40, 72]");
static const int c_shape[MATMUL_C_RANK] = MATMUL_C_SHAPE;
int main(void) { return c_shape[0] == 40 && c_shape[1] == 72 ? 0 : 1; }
C
check "a C program compiles against mm.h's shape macros" ${CC:-cc} -std=c11 -Wall -Werror -I"$work" -o "$work/shapes" "$work/shapes.c"
check "MATMUL_C_SHAPE is {40, 72}" "$work/shapes"

# bind on a CPU: a GPU index is a located error, a virtual thread a serial loop (checked on x86).
printf '%s\n' 'op f(A: f32[16, 16]) -> B {' '  compute { B[i, j] = A[i, j] * 2.0 }' '  schedule cpu {' \
  '    io, ii = split(B.i, 4)' '    bind(io, vthread)' '    bind(ii, vthread)' '  }' '}' >"$work/vthread.tex"
expect 0 '^f +x86 +PASS' -- run "$work/vthread.tex" --target x86
sed 's/bind(io, vthread)/bind(io, threadIdx.x)/' "$work/vthread.tex" >"$work/threadidx.tex"
expect 1 "threadidx.tex:5:14: error: 'threadIdx.x' is a GPU index, which target 'arm' does not have" \
  -- "$work/threadidx.tex" --target arm -o "$work/threadidx"

# --knob on the LLVM targets.
expect 0 '^matmul_tuned +x86 +PASS' -- run "$root/examples/04_knobs.tex" --target x86 -D M=64 -D N=48 -D K=16 --knob TJ=16 --knob TI=32

# Mistakes.
expect 1 "unknown CPU 'pentium9' for target x86" -- "$matmul" --target x86 --mcpu pentium9 -o "$work/bad"
check "no output for a bad --mcpu" test ! -e "$work/bad.o"
expect 1 "unknown CPU 'cortex-z9' for target arm" -- run "$matmul" --target arm --mcpu cortex-z9
expect 1 "--emit ptx is an output of target 'cuda'" -- "$matmul" --target x86 --emit ptx
expect 1 "target 'cuda' writes --emit obj, header, ptx, llvm, loops, graph and graph-dot, not 'asm'" -- "$matmul" --target cuda --emit asm
# The cuda lowering makes a kernel of an op without a `schedule cuda` (the default schedule); its PTX
# assembles with the CUDA toolkit's ptxas when it is installed.
expect 0 '' -- "$matmul" --target cuda --emit ptx,obj,header -o "$work/cu"
if [ -x /usr/local/cuda/bin/ptxas ]; then
  check "ptxas accepts the PTX of matmul" /usr/local/cuda/bin/ptxas -arch=sm_80 "$work/cu.ptx" -o "$work/cu.cubin"
fi
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then  # where a driver is installed it runs
  expect 2 "no CUDA device" -- run "$matmul" --target cuda
fi
expect 1 "cannot run on VDLA" -- run "$matmul" --target vdla
expect 1 "--extern-lib and --extern-src apply to 'texc run' only" -- "$intrinsic" --target x86 --extern-src "$dot16"

# --time-compile: a row per phase.
out=$("$texc" "$matmul" --target x86 $small -o "$work/t" --time-compile 2>&1)
for phase in frontend "lowering matmul" "LLVM IR generation" "LLVM optimization" "object emission" total; do
  check "--time-compile reports '$phase'" grep -qE "^  $phase +[0-9]+\.[0-9]+ ms +[0-9]+\.[0-9]+ ms$" <<<"$out"
done

# run on x86 (JIT).
expect 0 '^matmul +x86 +PASS' -- run "$matmul" --target x86 $small
expect 0 '^\{"op": "matmul", "target": "x86", "status": "pass", .*"threads": 3,' \
  -- run "$matmul" --target x86 $small --json --threads 3 --repeat 2
out=$(TEXC_NUM_THREADS=2 "$texc" run "$matmul" --target x86 $small --json 2>&1)
check "TEXC_NUM_THREADS=2 honoured" grep -q '"threads": 2,' <<<"$out"

# run on arm: emulated timing label (off aarch64 hosts), or a missing runtime library: exit 2.
arm_runs=yes
if [ "$(uname -m)" != aarch64 ] && ! { command -v qemu-aarch64 && command -v aarch64-linux-gnu-g++; } >/dev/null; then
  echo "skipped: arm runs (no qemu-aarch64 or aarch64-linux-gnu-g++)"
  arm_runs=no
fi
if [ "$(uname -m)" != aarch64 ] && [ $arm_runs = yes ]; then
  expect 0 '^matmul +arm +PASS .* ms \(emulated\)' -- run "$matmul" --target arm -D M=8 -D N=16 -D K=8 --repeat 1
  expect 0 '"timing": "emulated \(qemu-aarch64\)"' -- run "$matmul" --target arm -D M=8 -D N=16 -D K=8 --repeat 1 --json
fi
out=$(TEXC_TEXRT_AARCH64=$work/missing.a "$texc" run "$matmul" --target arm 2>&1)
status=$?
if [ $status -eq 2 ] && grep -q "aarch64 runtime library" <<<"$out"; then echo "ok: missing aarch64 runtime -> exit 2"
else echo "FAIL: missing aarch64 runtime -> exit $status: $out"; failures=$((failures + 1)); fi

# Extern functions of a tensorized op.
expect 1 "op 'int8_rows' calls the extern function 'my_dot16', which no library provides" \
  -- run "$intrinsic" --target x86
expect 0 '^int8_rows +x86 +PASS' -- run "$intrinsic" --target x86 --extern-src "$dot16"
cc -O2 -fPIC -shared -o "$work/libdot16.so" "$dot16"
expect 0 '^int8_rows +x86 +PASS' -- run "$intrinsic" --target x86 --extern-lib "$work/libdot16.so"
expect 0 '^int8_rows +interp +PASS' -- run "$intrinsic" --target interp --extern-lib "$work/libdot16.so"
# A kernel that is wrong is caught by the check (the library's function replaces the built-in one).
sed 's/c\[j\] = acc;/c[j] = acc + 1;/' "$dot16" >"$work/wrong_dot16.c"
expect 1 '^int8_rows +interp +FAIL' -- run "$intrinsic" --target interp --extern-src "$work/wrong_dot16.c"
expect 1 '^int8_rows +x86 +FAIL' -- run "$intrinsic" --target x86 --extern-src "$work/wrong_dot16.c"
# A kernel wrong on its first call only (one too many in c[0] on the M = 8 rows of the op's first
# call) fails: the check reads the outputs of the first call, not of the timed ones after it.
sed 's/c\[j\] = acc;/c[j] = acc + (j == 0 \&\& calls < 8);/; s/^void my_dot16(.*) {$/static long calls;\n&/; s/^}$/  ++calls;\n}/' \
  "$dot16" >"$work/first_call_dot16.c"
expect 1 '^int8_rows +x86 +FAIL' -- run "$intrinsic" --target x86 -D M=8 --repeat 2 --extern-src "$work/first_call_dot16.c"
echo 'this is not C' >"$work/broken.c"
expect 1 "--extern-src .*broken.c does not compile" -- run "$intrinsic" --target x86 --extern-src "$work/broken.c"
expect 1 "--extern-lib: cannot open file" -- run "$intrinsic" --target x86 --extern-lib "$work/none.so"
if [ $arm_runs = yes ]; then
  expect 0 '^f +arm +PASS' -- run "$work/vthread.tex" --target arm --repeat 1
  expect 0 '^int8_rows +arm +PASS' -- run "$intrinsic" --target arm -D M=8 --repeat 1 --extern-src "$dot16"
  expect 1 '^int8_rows +arm +FAIL' -- run "$intrinsic" --target arm -D M=8 --repeat 2 --extern-src "$work/first_call_dot16.c"
fi

echo "$failures failed"
[ "$failures" -eq 0 ]
