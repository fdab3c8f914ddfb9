#!/usr/bin/env bash
# Every test on a fresh machine: install what is missing, build texc (Release), run the whole
# ctest suite (labels: unit, passes, errors, e2e, schedule), then build the unit, pass and error
# tests again with AddressSanitizer + UndefinedBehaviorSanitizer and run them, then run the
# fuzzer (parser, checker, lowering, LLVM IR) for a fixed budget. Exits non-zero if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
tools/setup.sh
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
echo "== sanitizer build (ASan + UBSan)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTEXC_SANITIZE=ON
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=0 ctest --test-dir build-asan --output-on-failure -j "$jobs" -L "unit|passes|errors"
if [ -x tests/fuzz/run_fuzz.sh ]; then
  echo "== fuzzing the parser, checker, lowering and code generation"
  tests/fuzz/run_fuzz.sh 60
fi
