#!/usr/bin/env bash
# texc must survive whatever it is given (docs/cli.md: a user error is a message and exit 1,
# a missing environment piece exit 2, a crash, abort, hang or "internal error" a bug). Generates
# inputs that used to kill texc — compiled code that faults, sizes that overflow 64 bits or cannot
# be allocated, thread counts and CPU options that abort, a long f32 sum the check used to reject,
# empty or out-of-range flag values — and runs each under `timeout` and a memory limit (ulimit -v),
# checking its exit code and message. Any exit code of 128 or more (a signal), any "internal
# error", or a timeout fails the test.
# usage: robustness_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
case "$texc" in */*) texc=$(cd "$(dirname "$texc")" && pwd)/$(basename "$texc") ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
memory_kb=${TEXC_ROBUSTNESS_MEMORY_KB:-8000000}

# expect_robust EXIT_CODE PATTERN -- ARGS...: runs texc ARGS with a time and memory limit; checks
# the exit code, that the output matches PATTERN (extended regex), and that it neither crashed nor
# reported an internal error.
expect_robust() {
  local code=$1 pattern=$2
  shift 3
  local out status
  out=$(ulimit -v "$memory_kb"; timeout 300 "$texc" "$@" 2>&1)
  status=$?
  local problem=""
  if [ "$status" -eq 124 ]; then problem="timed out"
  elif [ "$status" -ge 128 ]; then problem="crashed (exit $status)"
  elif grep -q "internal error" <<<"$out"; then problem="reported an internal error"
  elif [ "$status" -ne "$code" ]; then problem="exit $status, want $code"
  elif ! grep -qE -- "$pattern" <<<"$out"; then problem="output does not match /$pattern/"
  fi
  if [ -n "$problem" ]; then
    echo "FAIL: texc $* -> $problem, output:"
    sed 's/^/    /' <<<"$out" | head -20
    failures=$((failures + 1))
  else
    echo "ok: texc $*"
  fi
}

# write_gather_inputs DIR BAD: gather.A.npy (f32[64]) and gather.I.npy (i32[200000], in bounds, but
# I[123457] = BAD when BAD is given) for the gather op below.
write_gather_inputs() {
  python3 - "$1" "${2:-}" <<'EOF'
import struct, sys
def write_npy(path, descr, code, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), code), *values))
indices = [(i * 7) % 64 for i in range(200000)]
if sys.argv[2]:
    indices[123457] = int(sys.argv[2])
write_npy(sys.argv[1] + "/gather.A.npy", "<f4", "f", [i / 64.0 for i in range(64)])
write_npy(sys.argv[1] + "/gather.I.npy", "<i4", "i", indices)
EOF
}

# --- 1. compiled code that reads outside its buffers -----------------------------------------
cat >"$work/oob_select.tex" <<'EOF'
op oob(A: f32[64]) -> B {
  compute { B[i] = select(A[i] > 0.0, A[i + 100000000], 0.0) }
}
EOF
for target in x86 interp; do
  expect_robust 1 "^oob +$target +FAIL|out-of-bounds read of 'A' at \[1000000" -- run "$work/oob_select.tex" --target $target
done

# A gather whose index comes from --inputs: one bad index among 200000, where the sampled check
# does not look, so only the compiled code meets it (in its child process).
cat >"$work/gather.tex" <<'EOF'
op gather(A: f32[64], I: i32[200000]) -> B {
  compute { B[i] = A[I[i]] }
}
EOF
mkdir -p "$work/io"
write_gather_inputs "$work/io" 1000000000
expect_robust 1 "^gather +x86 +FAIL.*
.*(crashed \(SIGSEGV|out-of-bounds)" -- run "$work/gather.tex" --target x86 --inputs "$work/io"
expect_robust 1 "^gather +interp +FAIL.*
.*out-of-bounds load from 'A' at \[1000000000\]" -- run "$work/gather.tex" --target interp --inputs "$work/io"
# The same gather with every index in bounds passes (the child's outputs come back).
write_gather_inputs "$work/io"
expect_robust 0 "^gather +x86 +PASS" -- run "$work/gather.tex" --target x86 --inputs "$work/io"

# An extern function that faults: the child dies, texc reports it.
cat >"$work/crash_dot16.c" <<'EOF'
#include <stdint.h>
void my_dot16(const int8_t* a, const int8_t* b, int32_t* c) { (void)a; (void)b; (void)c; *(volatile int*)0 = 1; }
EOF
expect_robust 1 "^int8_rows +x86 +FAIL.*
.*the compiled op 'int8_rows' crashed \(SIGSEGV" \
  -- run "$root/examples/05_intrinsic.tex" --target x86 --extern-src "$work/crash_dot16.c"
expect_robust 1 "^int8_rows +interp +FAIL.*
.*op 'int8_rows' \(with its extern functions\) crashed \(SIGSEGV" \
  -- run "$root/examples/05_intrinsic.tex" --target interp --extern-src "$work/crash_dot16.c"

if [ "$(uname -m)" = aarch64 ] || { command -v qemu-aarch64 && command -v aarch64-linux-gnu-gcc; } >/dev/null; then
  expect_robust 1 "^int8_rows +arm +FAIL.*
.*running the arm driver failed \(crashed: SIGSEGV" \
    -- run "$root/examples/05_intrinsic.tex" --target arm -D M=8 --repeat 1 --extern-src "$work/crash_dot16.c"
else
  echo "skipped: arm crash (no qemu-aarch64 or aarch64-linux-gnu-gcc)"
fi

# --- 2. sizes ------------------------------------------------------------------------------------
cat >"$work/bigshape.tex" <<'EOF'
param M = 18014398509481984
op big(A: f32[M, 1024]) -> B {
  compute { B[i, j] = A[i, j] }
}
EOF
too_large="bigshape.tex:2:8: error: tensor 'A' of shape \[18014398509481984, 1024\] has 18446744073709551616 elements"
expect_robust 1 "$too_large" -- run "$work/bigshape.tex" --target x86
expect_robust 1 "$too_large" -- "$work/bigshape.tex" --target x86 -o "$work/big"
[ ! -e "$work/big.h" ] || { echo "FAIL: a header was written for a tensor too large"; failures=$((failures + 1)); }

cat >"$work/bigalloc.tex" <<'EOF'
param N = 1099511627776
op huge(A: f32[N]) -> B {
  compute { B[i] = A[i] + 1.0 }
}
EOF
for target in x86 interp; do
  expect_robust 1 "^huge +$target +FAIL.*
.*cannot allocate 4398046511104 bytes for f32\[1099511627776\] \(input 'A'\)" -- run "$work/bigalloc.tex" --target $target
done
cat >"$work/convpad.tex" <<'EOF'
import nn.conv2d
op convpad(X: f32[1, 3, 8, 8], W: f32[4, 3, 3, 3]) -> Y {
  compute { Y = conv2d(X, W, pad = 100000) }
}
EOF
expect_robust 1 "cannot allocate [0-9]+ bytes for f32\[1, 4, 200006, 200006\] \(output 'Y'\)" \
  -- run "$work/convpad.tex" --target x86

# An intermediate tensor of 2^40 elements behind a 4-element output.
cat >"$work/hugemid.tex" <<'EOF'
op hugemid(A: f32[4]) -> B {
  compute { T[i: 1099511627776] = A[0] + 1.0
            B[j: 4] = T[j] }
}
EOF
for target in x86 interp; do
  expect_robust 1 "^hugemid +$target +FAIL" -- run "$work/hugemid.tex" --target $target --no-fuse
done

# --- 6. threads and CPU options ------------------------------------------------------------------
matmul=$root/examples/02_matmul.tex
small="-D M=40 -D N=72 -D K=24"
expect_robust 1 "--threads must be at most 1024, not 100000" -- run "$matmul" --target x86 $small --threads 100000
for value in abc 0 -1 100000 ''; do
  out=$(ulimit -v "$memory_kb"; TEXC_NUM_THREADS=$value timeout 120 "$texc" run "$matmul" --target x86 $small 2>&1)
  status=$?
  if [ $status -eq 1 ] && grep -q "TEXC_NUM_THREADS must be a whole number from 1 to 1024, not '$value'" <<<"$out"; then
    echo "ok: TEXC_NUM_THREADS='$value' refused"
  else
    echo "FAIL: TEXC_NUM_THREADS='$value' -> exit $status: $out"
    failures=$((failures + 1))
  fi
done
# More threads than the memory limit lets the child start: the pool runs with those it has.
expect_robust 0 "^matmul +x86 +PASS" -- run "$matmul" --target x86 $small --threads 1024 --repeat 2
# Under qemu-aarch64 each thread costs qemu two stacks, and qemu crashed (SIGSEGV or a GLib abort)
# with 1024 threads in 4 GB: the emulated program runs with at most 64, and says so.
if { command -v qemu-aarch64 && command -v aarch64-linux-gnu-gcc; } >/dev/null && [ "$(uname -m)" != aarch64 ]; then
  saved_memory_kb=$memory_kb
  memory_kb=4000000
  expect_robust 0 "runs with 64 threads, not 1024, under qemu-aarch64.*
matmul +arm +PASS" -- run "$matmul" --target arm $small --threads 1024 --repeat 2
  out=$(ulimit -v "$memory_kb"; TEXC_NUM_THREADS=1024 timeout 300 "$texc" run "$matmul" --target arm $small --repeat 2 2>&1)
  if [ $? -eq 0 ] && grep -q "^matmul  *arm  *PASS" <<<"$out"; then
    echo "ok: TEXC_NUM_THREADS=1024 on arm under qemu"
  else
    echo "FAIL: TEXC_NUM_THREADS=1024 on arm under qemu: $out"
    failures=$((failures + 1))
  fi
  memory_kb=$saved_memory_kb
else
  echo "skipped: arm --threads 1024 (no qemu-aarch64 or aarch64-linux-gnu-gcc, or an aarch64 host)"
fi
expect_robust 1 "target x86 cannot use --mcpu i386: x86-64 code needs a 64-bit CPU" -- run "$matmul" --target x86 $small --mcpu i386
expect_robust 1 "target x86 cannot use --mattr -64bit-mode" -- run "$matmul" --target x86 $small --mattr=-64bit-mode
expect_robust 1 "target x86 cannot use --mattr \+soft-float" -- run "$matmul" --target x86 $small --mattr=+soft-float
expect_robust 1 "target x86 cannot use --mattr \+soft-float" -- "$matmul" --target x86 $small --mattr=+soft-float -o "$work/sf"
expect_robust 1 "unknown feature 'nonsense' in --mattr for target x86 \(did you mean" -- run "$matmul" --target x86 --mattr=+nonsense
expect_robust 1 "--mattr entries are \+FEATURE \(enable\) or -FEATURE \(disable\), not 'avx2'" -- run "$matmul" --target x86 --mattr=avx2
expect_robust 1 "unknown CPU 'skylake-avx513' for target x86 \(did you mean 'skylake-avx512'" -- "$matmul" --target x86 --mcpu skylake-avx513
expect_robust 1 "unknown feature '64bit' in --mattr for target arm" -- "$matmul" --target arm --mattr=-64bit -o "$work/arm"
expect_robust 0 "^matmul +x86 +PASS" -- run "$matmul" --target x86 $small --mattr=+avx2,-avx512f

# --- 7. the check: a long f32 sum computed as a sequential f32 sum passes ---------------------------
cat >"$work/longsum.tex" <<'EOF'
op longsum(A: f32[16]) -> B {
  compute { B[i] = sum(A[i] for k in 0..1000000) }
}
EOF
for target in x86 interp; do
  expect_robust 0 "^longsum +$target +PASS +max_rel_err [0-9.]+e-0[23]" -- run "$work/longsum.tex" --target $target --repeat 1
done

# --- 8. command-line values ------------------------------------------------------------------------
op=$root/tests/e2e/corpus/ew_add.tex
expect_robust 1 "--repeat must be at most 1000000000, not 99999999999999" -- run "$op" --target interp --repeat 99999999999999
expect_robust 1 "--repeat: '99999999999999999999999' is out of range" -- run "$op" --target interp --repeat 99999999999999999999999
for flag in --save-io --inputs --op --mcpu --mattr -o --target; do
  expect_robust 1 "$flag needs a value, not an empty string" -- run "$op" --target interp "$flag" ''
done
expect_robust 1 "--save-io needs a value, not an empty string" -- run "$op" --target interp --save-io=
mkdir -p "$work/outdir"
expect_robust 1 "-o takes an output stem .* not the directory '$work/outdir/'" -- "$op" --target x86 -o "$work/outdir/"
expect_robust 1 "-o takes an output stem" -- "$op" --target x86 -o "$work/outdir"
[ -z "$(ls -A "$work/outdir")" ] || { echo "FAIL: -o DIR/ wrote $(ls -A "$work/outdir")"; failures=$((failures + 1)); }
# A failed --extern-src build leaves no temporary directory behind.
echo 'this is not C' >"$work/broken.c"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
expect_robust 1 "--extern-src .*broken.c does not compile" -- run "$root/examples/05_intrinsic.tex" --target x86 --extern-src "$work/broken.c"
[ -z "$(ls -A "$TMPDIR")" ] || { echo "FAIL: a failed --extern-src left $(ls -A "$TMPDIR") in TMPDIR"; failures=$((failures + 1)); }
unset TMPDIR

echo "$failures failed"
[ "$failures" -eq 0 ]
