#!/usr/bin/env bash
# Builds the C API example the way a user would, and runs it:
#   texc examples/02_matmul.tex     --target T -D ... -o WORK/matmul      -> matmul.o, matmul.h
#   texc examples/01_elementwise.tex --target T -D ... -o WORK/scale_relu -> scale_relu.o, scale_relu.h
#   cc main.c matmul.o scale_relu.o libtexrt.a -lstdc++ -lpthread -lm      (one runtime for both ops)
# x86: linked with the host C compiler and run. arm: compiled and linked statically with
# aarch64-linux-gnu-gcc/g++ and run under qemu-aarch64 (natively on an aarch64 host).
#
# usage: build_and_run.sh TEXC REPO_ROOT x86|arm LIBTEXRT.a WORK_DIR
# Exits 0 when the program prints "c_api example: ok"; skips (exit 0 with a "skipped" line) for arm
# when the cross compiler or qemu-aarch64 is missing.
set -eu
texc=$1 root=$2 target=$3 texrt=$4 work=$5
# Sizes that do not divide the schedules' tiles (matmul tiles 32 x 64 x 4, elementwise 8 lanes), so
# the tails are exercised; main.c takes them from the headers' shape macros (MATMUL_A_DIM0...).
M=50 N=70 K=30 L=1001

mkdir -p "$work"
"$texc" "$root/examples/02_matmul.tex" --target "$target" -D M=$M -D N=$N -D K=$K -o "$work/matmul" \
  ${TEXC_MCPU:+--mcpu "$TEXC_MCPU"}
"$texc" "$root/examples/01_elementwise.tex" --target "$target" -D N=$L -o "$work/scale_relu" \
  ${TEXC_MCPU:+--mcpu "$TEXC_MCPU"}

if [ "$target" = x86 ]; then
  ${CC:-cc} -O1 -I"$work" -o "$work/c_api_example" "$root/examples/c_api/main.c" \
    "$work/matmul.o" "$work/scale_relu.o" "$texrt" -lstdc++ -lpthread -lm
  "$work/c_api_example"
else
  run=()
  if [ "$(uname -m)" != aarch64 ]; then
    cc_arm=aarch64-linux-gnu-gcc cxx_arm=aarch64-linux-gnu-g++
    if ! command -v qemu-aarch64 >/dev/null || ! command -v $cxx_arm >/dev/null; then
      echo "c_api example (arm): skipped, aarch64-linux-gnu-g++ or qemu-aarch64 missing"
      exit 0
    fi
    run=(qemu-aarch64)
  else
    cc_arm=cc cxx_arm=c++
  fi
  # libtexrt is C++ (std::thread): compile main.c as C, link with the C++ driver.
  $cc_arm -O1 -I"$work" -c "$root/examples/c_api/main.c" -o "$work/main.o"
  $cxx_arm -static -o "$work/c_api_example" "$work/main.o" "$work/matmul.o" "$work/scale_relu.o" "$texrt" -pthread -lm
  "${run[@]}" "$work/c_api_example"
fi
