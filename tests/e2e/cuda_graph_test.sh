#!/usr/bin/env bash
# Graphs of fused kernels on the GPU targets (docs/graph.md "On the GPU"), without a GPU:
#  - examples/10_network.tex: --emit graph on cuda lists its 7 kernels (the flatten is a kernel of
#    its own there); each conv kernel launches with conv2d's `schedule cuda` (blockIdx.y, threadIdx.y);
#    the header declares the kernels and the host entry with SMALL_CNN_WORKSPACE_BYTES; the PTX has
#    one .entry per kernel and passes ptxas for sm_80 and sm_90 (when ptxas is installed);
#  - texc run --target cuda-interp passes with every kernel checked on its own inputs, then end to
#    end (10_network at S=8 and S=16, tests/e2e/graph/resnet_block.tex);
#  - texc run --target cuda without a driver exits 2 ("no CUDA device");
#  - through the recording libcuda.so.1 stand-in (fake_libcuda.c, computes nothing): texc run's
#    graph executor loads one module, allocates one workspace of SMALL_CNN_WORKSPACE_BYTES and
#    launches the 7 kernels in order with each kernel's grid and block from the header, every run;
#    the compiled entry in net.o, called from C twice, allocates the thread's workspace once,
#    launches the kernels in order through texrt_cuda_launch (the second reads the workspace at
#    offset 0) without waiting between them, then waits once, keeps the workspace until
#    texrt_cuda_release_workspace frees it, and stops at a failing kernel with its error code;
#    small_cnn_with_workspace, called twice on a caller's device workspace, launches the kernels in
#    order each time (the second reading the caller's workspace) and allocates nothing.
# usage: cuda_graph_test.sh TEXC REPO_ROOT SHIM_DIR [LIBTEXRT_A [EXTRA_LINK_FLAGS]]
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
shim_dir=$(realpath "$3")
texrt=${4:-}
link_flags=${5:-}
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
net="$root/examples/10_network.tex"
block="$root/tests/e2e/graph/resnet_block.tex"
check() {
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else
    echo "FAIL: $what"
    failures=$((failures + 1))
  fi
}

expect 0 'op small_cnn: 7 kernels, host entry small_cnn' -- "$net" --target cuda -D S=16 --emit graph -o -
expect 0 'kernel small_cnn_k0: complex-out-fusible, anchor C1 \(conv2d\)' -- "$net" --target cuda-interp -D S=16 --emit graph -o -
expect 0 'kernel small_cnn_k4: injective, no anchor' -- "$net" --target cuda -D S=16 --emit graph -o -
expect 0 'stages: P2_Xq, P2$' -- "$net" --target cuda -D S=16 --emit graph -o -
expect 0 'op resnet_block: 2 kernels' -- "$block" --target cuda --emit graph -o -
# The partition says why the flatten is not in the pool's kernel on a GPU.
expect 0 "elementwise stage 'F' is not fused into the kernel of 'P2' \(max_pool2d\), its latest producer: on a GPU target" -- \
  "$net" --target cuda -D S=16 --remarks --emit graph -o /dev/null

"$texc" "$net" --target cuda -D S=8 --emit ptx,header,obj -o "$work/net" > /dev/null 2>&1
check "10_network's PTX has one .entry per kernel (7)" test "$(grep -c '^\.visible \.entry' "$work/net.ptx")" = 7
check "the header declares the host entry small_cnn" grep -q '^int small_cnn(const float\* X, .*float\* Y);' "$work/net.h"
check "the header says the entry launches its kernels" grep -q 'Launches its kernels in order' "$work/net.h"
check "the header has the workspace size" grep -q '^#define SMALL_CNN_WORKSPACE_BYTES [0-9]' "$work/net.h"
check "conv kernels launch with conv2d's schedule cuda (threadIdx.y)" \
  test "$(grep -c '^//   launch: blockIdx.x=[0-9]* blockIdx.y=[0-9]* blockIdx.z=1 threadIdx.x=[0-9]* threadIdx.y=' "$work/net.h")" -ge 2
ptxas=${TEXC_PTXAS:-}
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
if [ -n "$ptxas" ]; then
  for arch in sm_80 sm_90; do
    for f in "$net" "$block"; do
      name=$(basename "$f" .tex)
      "$texc" "$f" --target cuda --arch $arch --emit ptx -o "$work/$name.$arch" > /dev/null 2>&1
      check "ptxas -arch=$arch accepts $name's kernels" "$ptxas" -arch=$arch "$work/$name.$arch.ptx" -o "$work/$name.$arch.cubin"
    done
  done
else
  echo "skip: ptxas (not installed)"
fi

expect 0 'small_cnn +cuda-interp +PASS .*7 kernels checked on their own inputs' -- run "$net" --target cuda-interp -D S=8
expect 0 'small_cnn +cuda-interp +PASS .*7 kernels checked on their own inputs' -- run "$net" --target cuda-interp -D S=16
expect 0 'resnet_block +cuda-interp +PASS .*2 kernels checked on their own inputs' -- run "$block" --target cuda-interp

if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  expect 2 "^texc: error: no CUDA device: libcuda.so.1 cannot be loaded" -- run "$net" --target cuda -D S=8
fi

# texc run's graph executor through the stand-in (--check none: the stand-in computes nothing).
export LD_LIBRARY_PATH="$shim_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TEXC_FAKE_CUDA_LOG=$work/calls.log
workspace=$(sed -n 's/^#define SMALL_CNN_WORKSPACE_BYTES //p' "$work/net.h")
launches() {  # the launch lines the header's kernels make, in order
  grep '^//   launch:' "$work/net.h" | while read -r line; do
    d() { local v; v=$(grep -oE "$1=[0-9]+" <<<"$line" | cut -d= -f2); echo "${v:-1}"; }
    echo "grid=$(d blockIdx.x)x$(d blockIdx.y)x$(d blockIdx.z) block=$(d threadIdx.x)x$(d threadIdx.y)x$(d threadIdx.z)"
  done
}
launches > "$work/launches"
rm -f "$work/calls.log"
expect 0 'small_cnn +cuda +PASS .*not checked' -- run "$net" --target cuda -D S=8 --repeat 2 --check none
check "one module loaded for the 7 kernels" test "$(grep -c '^cuModuleLoadDataEx' "$work/calls.log")" = 1
check "one allocation of the workspace ($workspace bytes)" grep -q "^cuMemAlloc_v2 bytes=$workspace " "$work/calls.log"
grep '^cuLaunchKernel' "$work/calls.log" | sed -E 's/^cuLaunchKernel (grid=[^ ]+ block=[^ ]+).*/\1/' > "$work/launched"
cat "$work/launches" "$work/launches" "$work/launches" > "$work/expected"
check "the kernels launched in order with the header's grids and blocks, 3 runs (checked + 2 timed)" \
  cmp -s "$work/expected" "$work/launched"
check "every device allocation freed" \
  test "$(grep -c '^cuMemAlloc_v2' "$work/calls.log")" = "$(grep -c '^cuMemFree_v2' "$work/calls.log")"
# Without --check none the kernels are checked one by one first: the stand-in's first kernel fails.
expect 1 'kernel small_cnn_k0 \(stages Xp, C1, A1\): A1\[0, 0, 0, 0\] = nan' -- run "$net" --target cuda -D S=8

cc=${CC:-cc}
if [ -n "$texrt" ] && command -v "$cc" >/dev/null; then
  if "$cc" -std=c99 -Wall -Werror -I"$work" "$root/tests/e2e/graph/cuda_entry_driver.c" \
      "$work/net.o" "$texrt" -lstdc++ -lpthread -ldl -lm $link_flags -o "$work/driver" 2>"$work/cc.log"; then
    rm -f "$work/calls.log"
    out=$("$work/driver" 2>&1)
    check "net.o's small_cnn() returns 0 twice ($out)" test "$out" = "0 success"
    check "the entry allocates its workspace ($workspace bytes) once in two calls (the thread's, kept)" \
      test "$(grep -c "^cuMemAlloc_v2" "$work/calls.log")$(grep -c "^cuMemAlloc_v2 bytes=$workspace " "$work/calls.log")" = 11
    grep '^cuModuleGetFunction' "$work/calls.log" | cut -d= -f2 > "$work/names"
    printf 'small_cnn_k%s\n' 0 1 2 3 4 5 6 > "$work/expected_names"
    check "the entry launches small_cnn_k0 .. k6 in order (the kernels looked up once)" cmp -s "$work/expected_names" "$work/names"
    check "small_cnn_k1 reads A1 at workspace offset 0, in both calls" \
      test "$(grep '^cuLaunchKernel' "$work/calls.log" | sed -n '2p;9p' | grep -c " param0=$(sed -n 's/^cuMemAlloc_v2 .* -> //p' "$work/calls.log")$")" = 2
    check "the workspace freed by texrt_cuda_release_workspace, after the last launch" \
      test "$(grep -c '^cuMemFree_v2' "$work/calls.log")$(tail -n 1 "$work/calls.log" | cut -d' ' -f1)" = 1cuMemFree_v2
    check "each call launches the 7 kernels without waiting between them, then waits once" \
      test "$(grep -E '^(cuLaunchKernel|cuCtxSynchronize)' "$work/calls.log" | cut -d' ' -f1 | uniq -c | tr -s ' ' | tr '\n' ';')" = \
        " 7 cuLaunchKernel; 1 cuCtxSynchronize; 7 cuLaunchKernel; 1 cuCtxSynchronize;"
    rm -f "$work/calls.log"
    out=$(TEXC_FAKE_CUDA=kernel-fails "$work/driver" 2>&1)
    check "a failing kernel stops the entry with its code, naming the op ($out)" \
      grep -q "^5 a kernel of small_cnn failed: an illegal memory access was encountered (the entry launches" <<<"$out"
    check "after a failing kernel: the 7 launches of the first call, the workspace freed" \
      test "$(grep -c '^cuLaunchKernel' "$work/calls.log")$(grep -c '^cuMemFree_v2' "$work/calls.log")" = 71
    # The device check of tools/device_check.sh (step graph) builds; under the stand-in, which
    # computes nothing, it sees the wrong output (so it can fail).
    expect 0 'small_cnn +x86 +PASS' -- run "$net" --target x86 -D S=8 --save-io "$work/io"
    if "$cc" -std=c99 -Wall -Werror -I"$work" "$root/tests/e2e/cuda_graph_device_check.c" "$work/net.o" "$texrt" \
        -lstdc++ -lpthread -ldl -lm $link_flags -o "$work/device_check" 2>"$work/cc.log"; then
      out=$("$work/device_check" "$work/io" 2>&1)
      check "the graph's device check reports the stand-in's output as wrong ($out)" \
        grep -q "^FAIL: small_cnn through net.o's entry on the device, twice, worst relative error" <<<"$out"
    else
      echo "FAIL: cuda_graph_device_check.c does not build:"; sed 's/^/    /' "$work/cc.log"; failures=$((failures + 1))
    fi
    # The caller's workspace (ir/CallerWorkspace.h): small_cnn_with_workspace twice on 0xC0000000.
    check "the header declares small_cnn_with_workspace" \
      grep -q '^int small_cnn_with_workspace(const float\* X, .*float\* Y, void\* workspace);' "$work/net.h"
    check "the header defines SMALL_CNN_WORKSPACE_ALIGNMENT 64" grep -q '^#define SMALL_CNN_WORKSPACE_ALIGNMENT 64$' "$work/net.h"
    rm -f "$work/calls.log"
    out=$("$work/driver" workspace 2>&1)
    check "net.o's small_cnn_with_workspace() returns 0 twice ($out)" test "$out" = "0 success"
    check "small_cnn_with_workspace allocates and frees no device memory" \
      test "$(grep -c '^cuMemAlloc\|^cuMemFree' "$work/calls.log")" = 0
    grep '^cuLaunchKernel' "$work/calls.log" | sed -E 's/^cuLaunchKernel (grid=[^ ]+ block=[^ ]+).*/\1/' > "$work/launched"
    cat "$work/launches" "$work/launches" > "$work/expected"
    check "small_cnn_with_workspace launches the 7 kernels in order, twice" cmp -s "$work/expected" "$work/launched"
    check "small_cnn_k1 reads A1 at offset 0 of the caller's workspace, in both calls" \
      test "$(grep '^cuLaunchKernel' "$work/calls.log" | sed -n '2p;9p' | grep -c ' param0=0xc0000000$')" = 2
  else
    echo "FAIL: the C program with net.o and libtexrt.a does not build:"
    sed 's/^/    /' "$work/cc.log"
    failures=$((failures + 1))
  fi
else
  echo "skip: net.o from C (no libtexrt.a given, or no C compiler '$cc')"
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
