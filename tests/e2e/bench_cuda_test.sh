#!/usr/bin/env bash
# bench/run_bench.py --target cuda on a machine without a CUDA device: it builds the CUDA peers
# (bench_cublas, bench_cudnn: the ninja target texc_bench_cuda) and texc, then exits 2 with
# "no CUDA device" -- a message, not a traceback -- and leaves the report untouched; each peer on its
# own exits 2 with "bench_<peer>: no CUDA device: ...". Skipped (77) where a CUDA driver is installed.
# usage: bench_cuda_test.sh PYTHON3 REPO_ROOT BUILD_DIR
set -u
python=$1
root=$2
build=$3
failures=0
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  echo "skipped: a CUDA driver is installed; this test checks the path without a device"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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

cp "$root/docs/performance.md" "$work/performance.md"
rm -f "$build/bench/bench_cublas" "$build/bench/bench_cudnn"  # so that this run builds them
out=$("$python" "$root/bench/run_bench.py" --target cuda --quick --repeat 1 --build-dir "$build" \
  --out "$work/performance.md" 2>&1)
status=$?
echo "$out" | tail -n 8 | sed 's/^/    /'
check "run_bench.py --target cuda exits 2 (got $status)" test "$status" -eq 2
check "it says run_bench.py: no CUDA device" grep -q "^run_bench.py: no CUDA device: the CUDA tables need a machine with a GPU" <<<"$out"
check "with the peer's reason" grep -q "bench_cublas: no CUDA device: libcuda.so.1 cannot be loaded" <<<"$out"
check "no traceback" bash -c '! grep -q Traceback <<<"$1"' _ "$out"
check "it built bench_cublas" test -x "$build/bench/bench_cublas"
check "it built bench_cudnn" test -x "$build/bench/bench_cudnn"
check "the report is unchanged" cmp -s "$root/docs/performance.md" "$work/performance.md"

for peer in cublas cudnn; do
  out=$("$build/bench/bench_$peer" --workloads all --repeat 1 --json 2>&1)
  status=$?
  check "bench_$peer exits 2 (got $status)" test "$status" -eq 2
  check "bench_$peer says no CUDA device" grep -q "^bench_$peer: no CUDA device: " <<<"$out"
done

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
