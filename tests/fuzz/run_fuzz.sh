#!/usr/bin/env bash
# Builds tex_fuzz (clang-14, libFuzzer + AddressSanitizer, texc instrumented for coverage) in its
# own build directory and fuzzes the compiler (front end, lowering with the verifier, LLVM IR
# generation; see tex_fuzz.cpp) for a fixed time, seeded with every .tex file of the repository. A diagnostic (UserError) is fine; a crash, a sanitizer report, an internal
# error or an input slower than the timeout is a finding: libFuzzer writes it to
# $BUILD/findings/ and this script exits non-zero.
#
# usage: tests/fuzz/run_fuzz.sh [SECONDS=60] [BUILD_DIR=<repo>/build-fuzz]
set -euo pipefail
seconds=${1:-60}
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$repo/build-fuzz}

CC=clang-14 CXX=clang++-14 cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEXC_FUZZ=ON \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" >/dev/null
ninja -C "$build" -j2 tex_fuzz

corpus=$build/fuzz-corpus
findings=$build/findings
mkdir -p "$corpus" "$findings"
while IFS= read -r -d '' f; do
  cp "$f" "$corpus/seed_$(echo "$f" | md5sum | cut -c1-12).tex"
done < <(find "$repo" -name '*.tex' -not -path "$build/*" -not -path '*/build*/*' -print0)
echo "seeded $(ls "$corpus" | wc -l) files"

cd "$build"
# AddressSanitizer makes stack frames several times larger (CodeGen::emit takes ~4 KB a level), so
# expressions at the language's limits (docs/language.md "Limits": a 4096-operator chain, inlined
# chains) that the release texc handles in its 8 MB stack would overflow here: give the fuzzer the
# stack that the instrumented code needs to be held to the same limits.
ulimit -s 65536
# -timeout: one input slower than 5 s is a finding; -rss_limit_mb: so is runaway memory.
# -detect_leaks=0: ANTLR's prediction caches and texc's SourceManager keep memory across inputs by
# design, which makes LeakSanitizer scan the heap after nearly every input (~30x slower).
./tests/fuzz/tex_fuzz "$corpus" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=4096 -detect_leaks=0 \
  -dict="$repo/tests/fuzz/tex.dict" -artifact_prefix="$findings/" -print_final_stats=1
