#!/usr/bin/env bash
# Packs what tools/device_check.sh needs on a GPU machine whose image has the CUDA driver and
# toolkit but none of texc's build dependencies (LLVM 19, ANTLR, XGBoost, fmt): texc, bench_cublas
# and bench_cudnn from BUILD, the shared libraries texc loads beyond the C and C++ runtimes
# (xz-compressed, about 45 MB), the host-path check (tests/e2e/cuda_host_device_check.c linked
# with the host object of a matmul compiled here by texc --target cuda), the graph check
# (tests/e2e/cuda_graph_device_check.c with examples/10_network.tex's object and texc run's
# inputs and output on x86) and examples/c_api's CUDA example (cuda_main.c with cudart linked
# statically).
# usage: tools/device_bundle.sh [BUILD_DIR] [BUNDLE_DIR]     defaults: build .dev
# BUNDLE_DIR should be ignored by git (.git/info/exclude) and carried to the device machine. An
# existing BUNDLE_DIR/lib.tar.xz is kept (compressing takes minutes); delete it when the libraries
# change.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
bundle=${2:-.dev}
rm -rf "$bundle/bin" "$bundle/hostcheck" "$bundle/graphcheck" "$bundle/capi"
mkdir -p "$bundle/bin" "$bundle/hostcheck" "$bundle/graphcheck"
cp "$build/tools/texc/texc" "$bundle/bin/"
for peer in bench_cublas bench_cudnn; do
  if [ -x "$build/bench/$peer" ]; then cp "$build/bench/$peer" "$bundle/bin/"; fi
done
strip --strip-unneeded "$bundle"/bin/*

if [ ! -s "$bundle/lib.tar.xz" ]; then
  libs=$(mktemp -d)
  trap 'rm -rf "$libs"' EXIT
  mkdir -p "$libs/lib"
  for lib in $(ldd "$build/tools/texc/texc" | awk '/=>/ {print $3}'); do
    case $(basename "$lib") in
      libc.so* | libm.so* | libstdc++* | libgcc_s* | libpthread* | libdl.so* | librt.so*) ;;  # the machine's own
      *) cp -L "$lib" "$libs/lib/" ;;
    esac
  done
  strip --strip-unneeded "$libs"/lib/* 2>/dev/null || true
  tar -C "$libs" -cf - lib | xz -T0 -9e >"$bundle/lib.tar.xz.part"
  mv "$bundle/lib.tar.xz.part" "$bundle/lib.tar.xz"
fi

# The host path: mm.o's host function called from C with device pointers (docs/cuda.md).
cat >"$bundle/hostcheck/mm.tex" <<'TEX'
import linalg.matmul

op mm(A: f32[300, 70], B: f32[70, 130]) -> C {
  compute {
    C = matmul(A, B)
  }
}
TEX
TEXC_STDLIB="$root/stdlib" "$build/tools/texc/texc" "$bundle/hostcheck/mm.tex" --target cuda -o "$bundle/hostcheck/mm"
cc -O2 -I"$bundle/hostcheck" "$root/tests/e2e/cuda_host_device_check.c" "$bundle/hostcheck/mm.o" \
  "$build/runtime/libtexrt.a" -lstdc++ -lpthread -ldl -lm -o "$bundle/hostcheck/cuda_host_device_check"
# A graph's entry (examples/10_network.tex at 32x32: 7 kernels) called from C with device pointers,
# against texc run's output on x86 here (tests/e2e/cuda_graph_device_check.c).
TEXC_STDLIB="$root/stdlib" "$build/tools/texc/texc" "$root/examples/10_network.tex" --target cuda -D S=32 \
  -o "$bundle/graphcheck/net"
TEXC_STDLIB="$root/stdlib" "$build/tools/texc/texc" run "$root/examples/10_network.tex" --target x86 -D S=32 \
  --save-io "$bundle/graphcheck/io" >/dev/null
cc -O2 -I"$bundle/graphcheck" "$root/tests/e2e/cuda_graph_device_check.c" "$bundle/graphcheck/net.o" \
  "$build/runtime/libtexrt.a" -lstdc++ -lpthread -ldl -lm -o "$bundle/graphcheck/cuda_graph_device_check"
# examples/c_api's CUDA example, built the way its README says (it exits 77 here, without a device).
"$root/examples/c_api/build_and_run_cuda.sh" "$build/tools/texc/texc" "$root" "$build/runtime/libtexrt.a" "$bundle/capi" ||
  [ $? -eq 77 ]
du -sh "$bundle"
