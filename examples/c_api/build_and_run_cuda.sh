#!/usr/bin/env bash
# Builds and runs the CUDA C API example the way a user would:
#   texc examples/06_cuda_matmul.tex --target cuda -D M=100 -D N=70 -D K=30 -o WORK/mm -> mm.o, mm.h
#   cc -I CUDA/include cuda_main.c mm.o libtexrt.a -L CUDA/lib64 -lcudart_static -lstdc++ -lpthread -ldl -lrt -lm
#   ./cuda_example      (exit 77: no CUDA device here, skipped)
# usage: build_and_run_cuda.sh TEXC REPO_ROOT LIBTEXRT.a WORK_DIR [CUDA_HOME]
set -eu
texc=$1 root=$2 texrt=$3 work=$4 cuda=${5:-/usr/local/cuda}
if [ ! -f "$cuda/include/cuda_runtime_api.h" ] || [ ! -f "$cuda/lib64/libcudart_static.a" ]; then
  echo "cuda c_api example: skipped, no CUDA toolkit at $cuda"
  exit 77
fi
mkdir -p "$work"
"$texc" "$root/examples/06_cuda_matmul.tex" --target cuda -D M=100 -D N=70 -D K=30 -o "$work/mm"
${CC:-cc} -O1 -std=c99 -Wall -Werror -I"$work" -I"$cuda/include" -o "$work/cuda_example" \
  "$root/examples/c_api/cuda_main.c" "$work/mm.o" "$texrt" -L"$cuda/lib64" -lcudart_static -lstdc++ -lpthread -ldl -lrt -lm
"$work/cuda_example"
