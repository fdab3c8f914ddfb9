#!/usr/bin/env bash
# `texc run --target cuda` without a GPU: the host side (tools/driver/CudaExecutor.cpp,
# runtime/CudaDriver.cpp).
#  1. Where no CUDA driver is installed: exit 2 with "no CUDA device" (cli.md), nothing compiled.
#  2. With the recording shim fake_libcuda.c first on LD_LIBRARY_PATH (a stand-in for libcuda.so.1
#     that records the driver-API calls and computes nothing; see its header): the call sequence
#     (init, device 0, context, the PTX that `texc --emit ptx` writes, one allocation and copy per
#     argument with its size, the launch with the grid and block of f.h, CUDA events around
#     --repeat timed launches, the outputs copied back, everything freed), and each driver failure
#     (no device, a rejected PTX, a refused launch, a faulting kernel, an --arch newer than the
#     device). Since the shim computes nothing, the op must FAIL its check: texc never takes a
#     device's word for a result.
#  3. The same stand-in under a C program linking f.o and libtexrt.a (cuda_launch_driver.c): the
#     calls of texrt_cuda_launch and its error codes (runtime/texrt_cuda.h).
# usage: cuda_run_test.sh TEXC SHIM_DIR [LIBTEXRT_A [EXTRA_LINK_FLAGS]] (SHIM_DIR holds the shim's
# libcuda.so.1; without LIBTEXRT_A, or without a C compiler, part 3 is skipped)
set -u
texc=$1
shim_dir=$2
texrt=${3:-}
link_flags=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

check() {
  local what=$1
  shift
  if "$@"; then
    echo "ok: $what"
  else
    echo "FAIL: $what"
    failures=$((failures + 1))
  fi
}

cat >"$work/mm.tex" <<'EOF'
op mm(A: f32[16, 32], B: f32[32, 8]) -> C {
  compute {
    C[i, j] = sum(A[i, k] * B[k, j] for k in 0..32)
  }
}
EOF
op=$work/mm.tex

# 1. The machine as it is.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  expect 2 "^texc: error: no CUDA device: libcuda.so.1 cannot be loaded" -- run "$op" --target cuda
  expect 2 "^texc: error: no CUDA device: libcuda.so.1 cannot be loaded" -- tune "$op" --target cuda --trials 2 \
    --records "$work/none.jsonl"
  check "texc tune --target cuda without a device writes no record" test ! -s "$work/none.jsonl"
else
  echo "skipped: a libcuda.so.1 may be installed here; the no-driver case is not checked"
fi

# 2. Through the recording shim.
export LD_LIBRARY_PATH="$shim_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TEXC_FAKE_CUDA_LOG=$work/calls.log
export TEXC_FAKE_CUDA_PTX=$work/loaded.ptx
check "the shim is what dlopen finds" test -f "$shim_dir/libcuda.so.1"

TEXC_FAKE_CUDA=no-device expect 2 "^texc: error: no CUDA device \(no CUDA-capable device is detected\)" -- run "$op" --target cuda
check "no device: only cuInit was called" test "$(cat "$work/calls.log")" = "cuInit flags=0"

# The whole sequence, --repeat 3. The op fails: nothing was computed, the outputs are still NaN.
rm -f "$work/calls.log"
expect 1 "^mm +cuda +FAIL" -- run "$op" --target cuda --repeat 3
"$texc" "$op" --target cuda --emit ptx,header -o "$work/mm" >/dev/null 2>&1
check "the PTX loaded is the one --emit ptx writes (sm_80, the shim device's arch)" cmp -s "$work/loaded.ptx" "$work/mm.ptx"
# f.h: "//   launch: blockIdx.x=2 threadIdx.x=64" (an axis not listed is 1).
launch=$(grep -m1 '^//   launch:' "$work/mm.h")
dim() {
  local v
  v=$(grep -oE "$1=[0-9]+" <<<"$launch" | cut -d= -f2)
  echo "${v:-1}"
}
grid="$(dim blockIdx.x)x$(dim blockIdx.y)x$(dim blockIdx.z)"
block="$(dim threadIdx.x)x$(dim threadIdx.y)x$(dim threadIdx.z)"
check "f.h lists the launch ('$launch')" test -n "$launch"
cat >"$work/expected.log" <<EOF
cuInit flags=0
cuDeviceGetCount
cuDeviceGet ordinal=0
cuDevicePrimaryCtxRetain device=0
cuCtxSetCurrent primary
cuDeviceGetName device=0
cuDeviceGetAttribute attribute=75 device=0
cuDeviceGetAttribute attribute=76 device=0
cuCtxSetCurrent primary
cuModuleLoadDataEx ptx_bytes=$(wc -c <"$work/mm.ptx") .target sm_80
cuModuleGetFunction name=mm
cuCtxSetCurrent primary
cuMemAlloc_v2 bytes=2048 -> 0x10000000
cuMemcpyHtoD_v2 0x10000000 bytes=2048
cuMemAlloc_v2 bytes=1024 -> 0x11000000
cuMemcpyHtoD_v2 0x11000000 bytes=1024
cuMemAlloc_v2 bytes=512 -> 0x12000000
cuMemcpyHtoD_v2 0x12000000 bytes=512
cuLaunchKernel grid=GRID block=BLOCK shared=0 param0=0x10000000
cuCtxSynchronize
cuMemcpyDtoH_v2 0x12000000 bytes=512
cuEventCreate
cuEventCreate
cuEventCreate
cuEventCreate
cuEventRecord
cuLaunchKernel grid=GRID block=BLOCK shared=0 param0=0x10000000
cuEventRecord
cuLaunchKernel grid=GRID block=BLOCK shared=0 param0=0x10000000
cuEventRecord
cuLaunchKernel grid=GRID block=BLOCK shared=0 param0=0x10000000
cuEventRecord
cuEventSynchronize
cuEventElapsedTime_v2
cuEventElapsedTime_v2
cuEventElapsedTime_v2
cuEventDestroy_v2
cuEventDestroy_v2
cuEventDestroy_v2
cuEventDestroy_v2
cuMemFree_v2 0x10000000
cuMemFree_v2 0x11000000
cuMemFree_v2 0x12000000
cuModuleUnload the module
EOF
sed -i "s/GRID/$grid/; s/BLOCK/$block/" "$work/expected.log"
if ! diff "$work/expected.log" "$work/calls.log" >"$work/calls.diff"; then
  echo "FAIL: the driver-API call sequence (expected < > recorded):"
  sed 's/^/    /' "$work/calls.diff"
  failures=$((failures + 1))
else
  echo "ok: the driver-API call sequence"
fi
expect 1 '"status": "fail", .*"message": ".*' -- run "$op" --target cuda --repeat 2 --json

# An --arch the device cannot run, and an old device.
TEXC_FAKE_CUDA_CC=75 expect 2 "^texc: error: --arch sm_80 is newer than CUDA device 0 \(texc recording shim \(no GPU\), compute capability 7.5\)" \
  -- run "$op" --target cuda --arch sm_80
TEXC_FAKE_CUDA_CC=61 expect 2 "compute capability 6.1\) is older than every architecture texc generates PTX for" -- run "$op" --target cuda
rm -f "$work/calls.log"
TEXC_FAKE_CUDA_CC=75 expect 1 "^mm +cuda +FAIL" -- run "$op" --target cuda --repeat 1
check "a 7.5 device gets sm_75 PTX" grep -q "^cuModuleLoadDataEx .*\.target sm_75" "$work/calls.log"

# Driver failures: a FAIL line with the driver's words, device memory freed.
TEXC_FAKE_CUDA=reject-ptx expect 1 "the CUDA driver rejected the PTX of op 'mm': a PTX JIT compilation failed" \
  -- run "$op" --target cuda
TEXC_FAKE_CUDA=reject-ptx expect 1 "ptxas fatal   : the recording shim rejects every PTX" -- run "$op" --target cuda
rm -f "$work/calls.log"
TEXC_FAKE_CUDA=launch-fails expect 1 "launch of kernel mm \(grid $grid, block $block, 0 bytes of dynamic shared memory\) failed: too many resources requested for launch" \
  -- run "$op" --target cuda
check "a refused launch frees the device memory" test "$(grep -c '^cuMemFree_v2' "$work/calls.log")" = 3
TEXC_FAKE_CUDA=kernel-fails expect 1 "kernel mm failed: an illegal memory access was encountered" -- run "$op" --target cuda

# texc tune --target cuda (tools/driver/CudaRunner.h): the device found in a probe child, each
# candidate measured in its own child through the driver; the shim computes nothing, so every
# candidate is a "wrong" record, with the shim's device in it.
TEXC_FAKE_CUDA=no-device expect 2 "^texc: error: no CUDA device \(no CUDA-capable device is detected\)" -- \
  tune "$op" --target cuda --trials 2 --records "$work/tune.jsonl"
rm -f "$work/calls.log" "$work/tune.jsonl"
TEXC_FAKE_CUDA_CC=90 expect 1 "^mm +cuda +no valid configuration +1 trials \(0 resumed, 1 new, 1 failed\)" -- \
  tune "$op" --target cuda --trials 2 --records "$work/tune.jsonl"
check "the tune record is 'wrong' on the shim's device, PTX for sm_90" \
  grep -q '"device": "cuda / texc recording shim (no GPU) (sm_90)".*"status": "wrong"' "$work/tune.jsonl"
check "the candidate was launched in a child through the driver" grep -q '^cuLaunchKernel' "$work/calls.log"
# `tune --arch` checks candidates against that architecture's limits: 200 KB of shared memory per
# block is over sm_80's 163 KB (invalid, not run) and within sm_90's 227 KB (lowered and launched;
# "wrong" on the shim).
cat >"$work/big_shared.tex" <<'EOF2'
op big_shared(A: f32[256, 200], B: f32[200, 8]) -> C {
  compute {
    C[i, j] = sum(A[i, k] * B[k, j] for k in 0..200)
  }
  schedule cuda {
    knob BS_T in [64, 128]
    AS = cache_read(A, shared, C)
    bo, bi = split(C.i, 256)
    bind(bo, blockIdx.x)
    to, ti = split(bi, BS_T)
    bind(ti, threadIdx.x)
    compute_at(AS, bo)
    af = fuse(AS.i, AS.k)
    ao, at = split(af, BS_T)
    bind(at, threadIdx.x)
  }
}
EOF2
for arch in sm_80 sm_90; do
  TEXC_FAKE_CUDA_CC=90 "$texc" tune "$work/big_shared.tex" --target cuda --arch $arch --trials 2 \
    --records "$work/big_$arch.jsonl" > /dev/null 2>&1
done
check "tune --arch sm_80: both candidates invalid for sm_80's shared memory" \
  test "$(grep -c '"status": "invalid".*exceeds the 166912 bytes of --arch sm_80' "$work/big_sm_80.jsonl")" = 2
check "tune --arch sm_90: both candidates lowered and launched (wrong on the shim), none invalid" \
  test "$(grep -c '"status": "wrong"' "$work/big_sm_90.jsonl")" = 2

# 3. f.o's host function through texrt_cuda_launch.
cc=${CC:-cc}
if [ -n "$texrt" ] && command -v "$cc" >/dev/null; then
  "$texc" "$op" --target cuda -o "$work/mm" >/dev/null 2>&1
  if "$cc" -std=c99 -Wall -Werror -I"$work" "$(dirname "${BASH_SOURCE[0]}")/cuda_launch_driver.c" "$work/mm.o" "$texrt" \
    -lstdc++ -lpthread -ldl $link_flags -o "$work/driver" 2>"$work/cc.log"; then
    launch_run() {  # MODE EXPECTED_CODE PATTERN
      local out status
      rm -f "$work/calls.log"
      out=$(TEXC_FAKE_CUDA=$1 "$work/driver" 2>&1)
      status=$?
      if [ "$status" -ne "$2" ] || ! grep -qE -- "$3" <<<"$out"; then
        echo "FAIL: f.o's mm() with the stand-in in mode $1 -> exit $status (want $2): $out (wanted /$3/)"
        failures=$((failures + 1))
      else
        echo "ok: f.o's mm() with the stand-in in mode $1: $out"
      fi
    }
    launch_run ok 0 "^0 success$"
    cat >"$work/expected.log" <<EOF
cuInit flags=0
cuDeviceGetCount
cuDeviceGet ordinal=0
cuDevicePrimaryCtxRetain device=0
cuCtxGetCurrent
cuCtxSetCurrent primary
cuModuleLoadDataEx ptx_bytes=$(wc -c <"$work/mm.ptx") .target sm_80
cuModuleGetFunction name=mm
cuLaunchKernel grid=$grid block=$block shared=0 param0=0xa0000000
cuCtxSynchronize
EOF
    if ! diff "$work/expected.log" "$work/calls.log" >"$work/calls.diff"; then
      echo "FAIL: texrt_cuda_launch's call sequence (expected < > recorded):"
      sed 's/^/    /' "$work/calls.diff"
      failures=$((failures + 1))
    else
      echo "ok: texrt_cuda_launch's call sequence"
    fi
    check "f.o loads the PTX that --emit ptx writes" cmp -s "$work/loaded.ptx" "$work/mm.ptx"
    launch_run no-device 1 "^1 no CUDA device \(no CUDA-capable device is detected\)$"
    launch_run reject-ptx 3 "^3 the CUDA driver rejected the PTX: a PTX JIT compilation failed$"
    check "f.o's failure carries the JIT's log" grep -q "^ptxas fatal   : the recording shim rejects every PTX" <<<"$(TEXC_FAKE_CUDA=reject-ptx "$work/driver" 2>&1)"
    launch_run launch-fails 4 "^4 launch of kernel mm \\(grid $grid, block $block, 0 bytes of dynamic shared memory\\) failed: too many resources requested for launch$"
    launch_run kernel-fails 5 "^5 kernel mm failed: an illegal memory access was encountered$"
  else
    echo "FAIL: the C program with mm.o and libtexrt.a does not build:"
    sed 's/^/    /' "$work/cc.log"
    failures=$((failures + 1))
  fi
else
  echo "skipped: f.o through texrt_cuda_launch (no libtexrt.a given, or no C compiler '$cc')"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
