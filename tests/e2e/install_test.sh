#!/usr/bin/env bash
# The installed library (docs/library.md): `cmake --install` into a temporary prefix, then a small
# C++ program (install/library_consumer.cpp) configured with find_package(texc) against that prefix
# alone — not the build or source tree — compiles install/scaled_matmul.tex with the library API,
# runs it on x86 and interp against the reference interpreter, and sees texc's errors as C++
# exceptions (UserError, OptionError, InternalError). The installed texc runs the same op, on x86
# and on arm (with the installed aarch64 runtime, PREFIX/lib/aarch64/libtexrt.a).
# usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR [FLAGS]   (FLAGS: the sanitizer flags of the build, if any)
set -euo pipefail
CMAKE=$1 BUILD=$(cd "$2" && pwd) SRC=$(cd "$3" && pwd) FLAGS=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$CMAKE" --install "$BUILD" --prefix "$tmp/prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in bin/texc lib/libtexc_driver.a lib/libtexrt.a lib/cmake/texc/texcConfig.cmake include/texc/tools/driver/Module.h \
         include/texc/ir/Diagnostics.def share/texc/stdlib/nn/conv2d.tex; do
  [[ -e "$tmp/prefix/$f" ]] || fail "the prefix has no $f"
done

cp -r "$SRC/tests/e2e/install" "$tmp/src"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
"$CMAKE" -S "$tmp/src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/prefix" "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$FLAGS" \
  > "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "configuring against the prefix"; }
"$CMAKE" --build "$tmp/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "building against the prefix"; }
# Built from the prefix: no include directory or library of the build or source tree.
if grep -q -e "$BUILD" -e "$SRC" "$tmp/build/compile_commands.json" "$tmp/build/CMakeFiles/library_consumer.dir/link.txt" 2>/dev/null; then
  fail "the program was built with paths of the build or source tree"
fi

mkdir "$tmp/out"
"$tmp/build/library_consumer" "$tmp/src/scaled_matmul.tex" "$tmp/out" > "$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; fail "library_consumer"; }
cat "$tmp/run.log"
grep -q '^PASS$' "$tmp/run.log" || fail "library_consumer did not pass"
grep -q 'broken.tex:2:.*error' "$tmp/run.log" || fail "the UserError's diagnostic is not located"
grep -q 'int scaled_matmul(' "$tmp/out/scaled_matmul.h" || grep -q 'scaled_matmul(' "$tmp/out/scaled_matmul.h" \
  || fail "the header declares no scaled_matmul"

cmp -s "$tmp/out/ti4.loops.txt" "$tmp/out/ti8.loops.txt" && fail "the fixed knob TI=4 did not change the loops"
grep -q 'for ii in 0..4' "$tmp/out/ti4.loops.txt" || { cat "$tmp/out/ti4.loops.txt"; fail "TI=4: no loop ii of 4"; }

# The installed command, with the installed standard library.
(cd "$tmp" && TEXC_STDLIB= "$tmp/prefix/bin/texc" run "$tmp/src/scaled_matmul.tex" --target x86 --repeat 1) > "$tmp/texc.log" 2>&1 \
  || { cat "$tmp/texc.log"; fail "the installed texc run"; }
grep -q 'PASS' "$tmp/texc.log" || { cat "$tmp/texc.log"; fail "the installed texc run did not pass"; }
# arm: the installed texc links its programs with the installed aarch64 runtime.
if command -v qemu-aarch64 > /dev/null && command -v aarch64-linux-gnu-g++ > /dev/null; then
  [[ -e "$tmp/prefix/lib/aarch64/libtexrt.a" ]] || fail "the prefix has no lib/aarch64/libtexrt.a"
  (cd "$tmp" && TEXC_STDLIB= TEXC_TEXRT_AARCH64= "$tmp/prefix/bin/texc" run "$tmp/src/scaled_matmul.tex" --target arm --repeat 1) \
    > "$tmp/texc_arm.log" 2>&1 || { cat "$tmp/texc_arm.log"; fail "the installed texc run --target arm"; }
  grep -q 'PASS' "$tmp/texc_arm.log" || { cat "$tmp/texc_arm.log"; fail "the installed texc run --target arm did not pass"; }
else
  echo "skip: the installed texc on arm (qemu-aarch64 or aarch64-linux-gnu-g++ missing)"
fi
echo "install_test: PASS"
