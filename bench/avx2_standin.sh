#!/usr/bin/env bash
# bench/avx2_standin.sh — texc's stdlib defaults on an AVX2 CPU against oneDNN and OpenBLAS, on an
# AVX-512 host standing in for it (docs/performance.md, "AVX2 stand-in on a Zen 5"): texc with
# --mcpu x86-64-v3, oneDNN with ONEDNN_MAX_CPU_ISA=AVX2, OpenBLAS with OPENBLAS_CORETYPE=Haswell.
# Interleaved rounds (each workload: every texc, then the peers, then the next workload), 1 thread,
# every process pinned to one CPU; one line per measurement: "ROUND NAME WORKLOAD JSON".
#
# usage: bench/avx2_standin.sh gemm|conv|conv1x1|dwconv OUT [ROUNDS=3] [CPU=1]
#   TEXC_NEW=path/texc STDLIB_NEW=dir      the texc under test (default build-perf/tools/texc/texc, stdlib/)
#   TEXC_OLD=path/texc STDLIB_OLD=dir      optional: a texc and stdlib to compare with (e.g. an older commit's)
#   TEXC_SHIPPED=1                         also the texc under test with the records it ships for the
#                                          AVX2 kind (stdlib/records/x86.jsonl), named texc_shipped
#   BENCH_BIN=dir                          bench_onednn and bench_openblas (default build-perf/bench;
#                                          `ninja -C build-perf bench_onednn bench_openblas`)
set -u
kind=${1:?gemm or conv}; out=${2:?output file}; rounds=${3:-3}; cpu=${4:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
texc_new=${TEXC_NEW:-$root/build-perf/tools/texc/texc}; stdlib_new=${STDLIB_NEW:-$root/stdlib}
bin=${BENCH_BIN:-$root/build-perf/bench}
case $kind in
  gemm) workloads="G1 G2 G3 G4 G5 G6" ;;
  conv) workloads="C1 C2 C6 C7 C9 C12" ;;
  conv1x1) workloads="C3 C5 C8 C11" ;;
  dwconv) workloads="D1 D2 D3 D4 D5 D6 D7 D8 D9" ;;
  *) echo "avx2_standin.sh: gemm, conv, conv1x1 or dwconv, not '$kind'" >&2; exit 1 ;;
esac
: > "$out"
texc_run() {  # NAME TEXC STDLIB WORKLOAD ROUND
  local line defaults=()
  # The stdlib's defaults, not the records shipped for this machine kind (a texc older than them has
  # none), except for texc_shipped.
  [ "$1" != texc_shipped ] && "$2" --help 2>&1 | grep -q -- --no-records && defaults=(--no-records)
  line=$(TEXC_STDLIB=$3 taskset -c "$cpu" "$2" run "$root/bench/texc_workloads/$4.tex" --target x86 --mcpu x86-64-v3 \
         "${defaults[@]}" --threads 1 --repeat 10 --json 2>/dev/null | tail -1)
  echo "$5 $1 $4 $line" >> "$out"
}
for r in $(seq 1 "$rounds"); do
  for w in $workloads; do
    [ -n "${TEXC_OLD:-}" ] && texc_run texc_old "$TEXC_OLD" "${STDLIB_OLD:-$root/stdlib}" "$w" "$r"
    texc_run texc_new "$texc_new" "$stdlib_new" "$w" "$r"
    [ -n "${TEXC_SHIPPED:-}" ] && texc_run texc_shipped "$texc_new" "$stdlib_new" "$w" "$r"
    [ -x "$bin/bench_onednn" ] && env -u OPENBLAS_CORETYPE ONEDNN_MAX_CPU_ISA=AVX2 taskset -c "$cpu" \
      "$bin/bench_onednn" --workloads "$w" --threads 1 --repeat 10 --json 2>/dev/null | sed "s/^/$r onednn $w /" >> "$out"
    [ "$kind" = gemm ] && [ -x "$bin/bench_openblas" ] && OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 taskset -c "$cpu" \
      "$bin/bench_openblas" --workloads "$w" --threads 1 --repeat 10 --json 2>/dev/null | sed "s/^/$r openblas $w /" >> "$out"
  done
done
echo "wrote $out"
