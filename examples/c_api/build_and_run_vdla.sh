#!/usr/bin/env bash
# Builds and runs the VDLA C API example the way a user would (runtime/texrt_vdla.h):
#   texc examples/08_vdla_conv.tex --target vdla -D H=9 -D W=10 -o WORK/conv  -> conv.vdla (+ listing)
#   cc -I REPO -DH=9 -DW=10 vdla_main.c libtexc_backends_vdla.a libtexc_ir.a -lfmt -lstdc++ -lm
#   ./vdla_example WORK/conv.vdla
# usage: build_and_run_vdla.sh TEXC REPO_ROOT BUILD_DIR WORK_DIR
set -eu
texc=$1 root=$2 build=$3 work=$4
H=9 W=10   # rows of 2 and tiles that do not divide 9: the ragged tile is exercised
mkdir -p "$work"
"$texc" "$root/examples/08_vdla_conv.tex" --target vdla -D H=$H -D W=$W -o "$work/conv"
${CC:-cc} -O1 -std=c99 -Wall -Werror -I"$root" -DH=$H -DW=$W -o "$work/vdla_example" "$root/examples/c_api/vdla_main.c" \
  "$build/backends/vdla/libtexc_backends_vdla.a" "$build/ir/libtexc_ir.a" -lfmt -lstdc++ -lm
cd "$work" && ./vdla_example conv.vdla
