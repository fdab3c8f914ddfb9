#!/usr/bin/env bash
# Graphs of VDLA and host kernels (docs/graph.md, "VDLA: accelerator and host"):
#  - examples/11_vdla_network.tex (an int8 residual block): on vdla, 5 kernels — the two conv2d_int8
#    calls on VDLA, the NCHW -> NCHW16c transform, the ReLU and the residual add + NCHW transform on
#    the host (x86), the prepare function (weight blocking) on the host; --emit graph lists where
#    each kernel runs and the copies between host memory and VDLA DRAM; --remarks says why the ReLU
#    is not fused into the first convolution's kernel;
#  - texc run --target vdla passes with every kernel checked on its own inputs (--check full too)
#    and reports each VDLA kernel's simulated cycles and each host kernel's time, and the totals
#    apart, and --trace writes each VDLA kernel's timeline; --json has the same split (checked by python: the devices in order, the cycles and
#    the host time the sums of the kernels');
#  - the same op is a plain graph of 2 kernels on x86 and interp, and passes;
#  - graph/vdla_dense_softmax.tex: dense_int8 on VDLA between host kernels, a float softmax on the
#    host, passes;
#  - `-o rb` of such an op writes rb.o (host kernels, prepare, the VDLA kernels' programs embedded,
#    the entry), rb.h and each VDLA kernel's rb.KERNEL.vdla with its listing; a C program linked
#    with them calls the entry on `texc run --save-io`'s inputs and gets its output bit for bit,
#    with as many VDLA cycles as texc run counts (graph/vdla_entry.c); vdla-sim runs a kernel's
#    .vdla on its own; graph/vdla_dense_softmax.tex links too;
#  - texc tune tunes the VDLA kernels' task on the simulator and the host kernels' on the host CPU,
#    and texc run --records lowers each kernel with its task's record;
#  - an op of one group stays one VDLA program (tests/vdla/conv2d_int8.tex, its plain `vdla:`
#    line; -o writes its .vdla only, --emit obj is refused); a float network on vdla stays one
#    kernel and --emit graph says why.
# usage: vdla_graph_test.sh TEXC REPO_ROOT TEXRT_LIB VDLA_LIB IR_LIB
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
net="$root/examples/11_vdla_network.tex"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The split: which kernel runs where.
"$texc" "$net" --target vdla --emit graph -o - > "$work/graph.txt"
expect 0 'op resblock_int8: 5 kernels, host entry resblock_int8' -- "$net" --target vdla --emit graph -o -
placement=$(grep -E '^  kernel |^    runs on:' "$work/graph.txt" | paste -d' ' - - | sed -E 's/^  kernel ([a-z0-9_]+):.*runs on: ([A-Za-z]+).*/\1 \2/')
want=$'resblock_int8_k0 host\nresblock_int8_k1 VDLA\nresblock_int8_k2 host\nresblock_int8_k3 VDLA\nresblock_int8_k4 host'
if [ "$placement" = "$want" ]; then
  echo "ok: kernel placement"
else
  echo "FAIL: kernel placement:"; echo "$placement"; failures=$((failures + 1))
fi
expect 0 'on VDLA: resblock_int8_k1, resblock_int8_k3; on the host CPU \(x86\): resblock_int8_k0, resblock_int8_k2, resblock_int8_k4' -- \
  "$net" --target vdla --emit graph -o -
expect 0 'stages: Xp, Acc, C1' -- "$net" --target vdla --emit graph -o -
expect 0 'stages: C2_Xp, C2_Acc, C2' -- "$net" --target vdla --emit graph -o -
expect 0 'stages: R, Y' -- "$net" --target vdla --emit graph -o -
expect 0 'prepare function resblock_int8_prepare \(once per const inputs\): stages W1b, W2b
  runs on: host CPU \(x86\)' -- "$net" --target vdla --emit graph -o -
expect 0 'copies before: W1b \(9216 bytes\), Xb \(2048 bytes\): host memory -> VDLA DRAM' -- "$net" --target vdla --emit graph -o -
expect 0 'copies after:  C2 \(2048 bytes\): VDLA DRAM -> host memory' -- "$net" --target vdla --emit graph -o -
expect 0 "11_vdla_network.tex:24:5: remark: elementwise stage 'A1' is not fused into the kernel of 'C1' \(conv2d_int8\), its latest producer: that kernel runs on the accelerator, which runs the stages of its call only; it is a kernel without an anchor \(resblock_int8_k2\)" -- \
  "$net" --target vdla --emit graph -o /dev/null --remarks

# The run: PASS, each kernel checked, VDLA cycles and host time apart.
expect 0 'resblock_int8 +vdla +PASS .* ms \(VDLA simulated \+ host\) .*5 kernels checked on their own inputs' -- \
  run "$net" --target vdla
expect 0 'vdla kernel resblock_int8_k1: [1-9][0-9]* cycles = .* ms simulated .*copies: 11264 bytes host -> VDLA DRAM before, 2048 bytes VDLA DRAM -> host after' -- \
  run "$net" --target vdla
expect 0 'host kernel resblock_int8_k4: [0-9.e+-]+ ms on the host CPU \(x86\), median of its timed calls' -- run "$net" --target vdla
expect 0 'total: VDLA 2 kernels, [1-9][0-9]* cycles = [0-9.e+-]+ ms simulated at a nominal 100 MHz clock; host \(x86\) 3 kernels, [0-9.e+-]+ ms; copied 22528 bytes host -> VDLA DRAM, 4096 bytes VDLA DRAM -> host' -- \
  run "$net" --target vdla
expect 0 'resblock_int8 +vdla +PASS .*30720 points checked \(all\), 5 kernels checked' -- run "$net" --target vdla --check full
"$texc" run "$net" --target vdla --json > "$work/run.json" 2>&1
if /usr/bin/env python3 - "$work/run.json" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
devices = [k["device"] for k in r["kernels"]]
assert r["status"] == "pass", r
assert devices == ["x86", "vdla", "x86", "vdla", "x86"], devices
vdla = [k for k in r["kernels"] if k["device"] == "vdla"]
host = [k for k in r["kernels"] if k["device"] != "vdla"]
assert all(k["cycles"] > 0 for k in vdla) and r["cycles"] == sum(k["cycles"] for k in vdla), r
# each time is printed with 6 significant digits: the sum may differ from the total by their rounding
assert abs(r["host_kernels_ms"] - sum(k["ms"] for k in host)) <= 1e-5 * (len(host) + 1) * max(1, r["host_kernels_ms"]), r
assert abs(r["vdla_ms"] - r["cycles"] / 1e5) < 1e-9, r
assert r["bytes_to_vdla"] == 22528 and r["bytes_from_vdla"] == 4096, r
assert r["kernels_checked"] == 5, r
PY
then echo "ok: run --json: the kernels' devices, cycles and host time"; else echo "FAIL: run --json:"; cat "$work/run.json"; failures=$((failures + 1)); fi

# --trace t.json: one timeline per VDLA kernel, t.<kernel>.json (none for the checks' runs).
"$texc" run "$net" --target vdla --trace "$work/t.json" > /dev/null 2>&1
traces=$(cd "$work" && ls t*.json 2>/dev/null | tr '\n' ' ')
if [ "$traces" = "t.resblock_int8_k1.json t.resblock_int8_k3.json " ]; then echo "ok: --trace per VDLA kernel"
else echo "FAIL: --trace wrote: $traces"; failures=$((failures + 1)); fi

# The same op as a plain graph on the CPU targets.
expect 0 'op resblock_int8: 2 kernels' -- "$net" --target x86 --emit graph -o -
expect 0 'resblock_int8 +x86 +PASS .*2 kernels checked on their own inputs' -- run "$net" --target x86
expect 0 'resblock_int8 +interp +PASS .*2 kernels checked on their own inputs' -- run "$net" --target interp

# dense_int8 on VDLA, float softmax on the host.
dense="$root/tests/e2e/graph/vdla_dense_softmax.tex"
expect 0 'kernel qdense_softmax_k1: complex-out-fusible, anchor Acc \(dense_int8\)' -- "$dense" --target vdla --emit graph -o -
expect 0 'qdense_softmax +vdla +PASS .*3 kernels checked on their own inputs
  host kernel qdense_softmax_k0: .*
  vdla kernel qdense_softmax_k1: [1-9][0-9]* cycles' -- run "$dense" --target vdla

# A dense_int8 call then a division (which VDLA's ALU lacks): once an error ("an intermediate
# tensor in DRAM"), now the division is a host kernel after the VDLA kernel.
cat > "$work/divided.tex" <<'TEX'
import nn.int8
op divided(X: i8[4, 1, 16], W: i8[1, 1, 16, 16]) -> Y {
  compute {
    A = dense_int8(X, W)
    Y[m, nb, no] = A[m, nb, no] / 3
  }
}
TEX
expect 0 'on VDLA: divided_k0; on the host CPU \(x86\): divided_k1' -- "$work/divided.tex" --target vdla --emit graph -o -
expect 0 'divided +vdla +PASS .*2 kernels checked on their own inputs' -- run "$work/divided.tex" --target vdla

# -o: the host object with the VDLA programs embedded, called from C (graph/vdla_entry.c).
libs=("$(realpath "$3")" "$(realpath "$4")" "$(realpath "$5")")
mkdir -p "$work/o"
expect 0 'resblock_int8 +vdla +PASS' -- run "$net" --target vdla --save-io "$work/io"
cycles=$("$texc" run "$net" --target vdla --json | python3 -c 'import json, sys; r = json.load(sys.stdin); print((r[0] if isinstance(r, list) else r)["cycles"])')
if "$texc" "$net" --target vdla -o "$work/o/rb" &&
   [ "$(cd "$work/o" && ls | tr '\n' ' ')" = "rb.h rb.o rb.resblock_int8_k1.vdla rb.resblock_int8_k1.vdla.txt rb.resblock_int8_k3.vdla rb.resblock_int8_k3.vdla.txt " ] &&
   cc -std=c11 -O1 -Wall -Werror -I "$work/o" -I "$root" "$root/tests/e2e/graph/vdla_entry.c" "$work/o/rb.o" "${libs[@]}" \
     -lfmt -lstdc++ -lpthread -lm -o "$work/o/entry" &&
   "$work/o/entry" "$work/io" "$cycles"; then
  echo "ok: -o of a graph of VDLA and host kernels, its entry called from C ($cycles cycles)"
else
  echo "FAIL: -o of a graph of VDLA and host kernels, or its entry from C"; ls "$work/o"; failures=$((failures + 1))
fi
expect 0 'int resblock_int8\(const int8_t\* X, const int8_t\* W1b, const int8_t\* W2b, int8_t\* Y\);' -- \
  "$net" --target vdla --emit header -o -
expect 0 'int resblock_int8_k1\(const int8_t\* W1b, const int8_t\* Xb, int8_t\* C1\);' -- "$net" --target vdla --emit header -o -
expect 0 'void resblock_int8_k2\(const int8_t\* C1, int8_t\* A1\);' -- "$net" --target vdla --emit header -o -
sim="$(dirname "$texc")/../vdla-sim/vdla-sim"
if [ -x "$sim" ] && "$sim" "$work/o/rb.resblock_int8_k1.vdla" | grep -qE '^cycles: [1-9]'; then
  echo "ok: vdla-sim runs rb.resblock_int8_k1.vdla on its own"
else
  echo "FAIL: vdla-sim of rb.resblock_int8_k1.vdla"; failures=$((failures + 1))
fi
if "$texc" "$dense" --target vdla -o "$work/o/qd" &&
   cc -O1 -x c -include "$work/o/qd.h" - -x none "$work/o/qd.o" "${libs[@]}" -lfmt -lstdc++ -lpthread -lm -o "$work/o/qd" <<'C' && "$work/o/qd"
#include <stdio.h>
static int8_t X[QDENSE_SOFTMAX_X_SIZE], W[QDENSE_SOFTMAX_PREPARE_W_SIZE], Wb[QDENSE_SOFTMAX_WB_SIZE];
static float P[QDENSE_SOFTMAX_P_SIZE];
int main(void) {
  for (int i = 0; i < QDENSE_SOFTMAX_X_SIZE; ++i) X[i] = (int8_t)(i % 7 - 3);
  for (int i = 0; i < QDENSE_SOFTMAX_PREPARE_W_SIZE; ++i) W[i] = (int8_t)(i % 5 - 2);
  qdense_softmax_prepare(W, Wb);
  if (qdense_softmax(X, Wb, P) != 0) return printf("qdense_softmax failed: %s\n", texrt_vdla_last_error()), 1;
  float sum = 0;
  for (int i = 0; i < QDENSE_SOFTMAX_P_SIZE; ++i) sum += P[i];
  printf("qdense_softmax: %d rows of probabilities sum to %g\n", QDENSE_SOFTMAX_P_DIM0, sum);
  return sum > QDENSE_SOFTMAX_P_DIM0 - 0.01f && sum < QDENSE_SOFTMAX_P_DIM0 + 0.01f ? 0 : 1;
}
C
then
  echo "ok: -o of dense_int8 on VDLA + softmax on the host, called from C"
else
  echo "FAIL: -o of graph/vdla_dense_softmax.tex"; failures=$((failures + 1))
fi

# Tuning: the VDLA kernels' task on the simulator, the host kernels' tasks on the host CPU (their
# records the host target's); texc run then lowers each kernel with its task's best record.
expect 0 'resblock_int8_k1 +vdla +best .*task .conv2d_int8' -- tune "$net" --target vdla --trials 10 --records "$work/r.jsonl"
expect 0 'resblock_int8_k4 +x86 +best ' -- tune "$net" --target vdla --trials 10 --records "$work/r.jsonl"
expect 0 "note: kernel 'resblock_int8_k3': knobs C8V_[A-Z_=0-9 ]+ from the best record of task 'conv2d_int8" -- \
  run "$net" --target vdla --records "$work/r.jsonl"
expect 0 "resblock_int8 +vdla +PASS" -- run "$net" --target vdla --records "$work/r.jsonl"

# What stays as it was, and what is refused.
mkdir -p "$work/one"
if "$texc" "$root/tests/vdla/conv2d_int8.tex" --target vdla --op conv2d_int8_vdla_small -o "$work/one/c" &&
   [ "$(cd "$work/one" && ls | tr '\n' ' ')" = "c.vdla c.vdla.txt " ]; then
  echo "ok: -o of an op of one group writes its .vdla and listing only"
else
  echo "FAIL: -o of tests/vdla/conv2d_int8.tex"; ls "$work/one"; failures=$((failures + 1))
fi
expect 1 "--emit obj of target 'vdla' is the host part of an op compiled as a graph of VDLA and host kernels" -- \
  "$root/tests/vdla/conv2d_int8.tex" --target vdla --op conv2d_int8_vdla_small --emit obj -o "$work/one/c"
expect 0 'op conv2d_int8_vdla_small: 1 kernel \(one fused group\)' -- "$root/tests/vdla/conv2d_int8.tex" --target vdla --emit graph -o -
expect 0 'conv2d_int8_vdla_small +vdla +PASS .* ms \(simulated\)
  vdla: [1-9][0-9]* cycles' -- run "$root/tests/vdla/conv2d_int8.tex" --target vdla --op conv2d_int8_vdla_small
expect 0 'op small_cnn: 1 kernel \(6 groups, none of which VDLA runs' -- "$root/examples/10_network.tex" --target vdla -D S=16 --emit graph -o -

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
