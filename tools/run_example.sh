#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build texc, then compile an example
# to an object file and header and run it against the reference interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target texc
mkdir -p out
./build/tools/texc/texc examples/02_matmul.tex --target x86 -o out/matmul
ls -l out/matmul.o out/matmul.h
./build/tools/texc/texc run examples/02_matmul.tex --target x86
./build/tools/texc/texc run examples/03_conv_relu.tex --target interp -D S=14
