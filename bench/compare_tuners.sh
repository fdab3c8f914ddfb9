#!/usr/bin/env bash
# The tuner comparison of docs/tuning.md ("Comparison"), one command: xgb, the genetic algorithm
# and random search, 3 seeds each, on the spaces of bench/tune_spaces/ — a matmul, a conv2d and a
# depthwise convolution on x86 (1 thread) and two int8 convolutions on VDLA (simulated cycles) —
# each run into its own records file under OUT (default tune_compare/), then per space the trials
# each run needed to reach 95% of the best configuration any run found (tools/tune_compare.py,
# as measured and with pooled medians), and xgb warm-started with records of other shapes
# (xgb+transfer, below). Re-running resumes every run where it stopped.
#
#   bench/compare_tuners.sh [TEXC] [OUT]     # ~2 hours on one core; CPUS=1 pins it (taskset)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
texc=${1:-$root/build/tools/texc/texc}
out=${2:-tune_compare}
pin=()
[ -n "${CPUS:-}" ] && pin=(taskset -c "$CPUS")
export TEXC_NUM_THREADS=1
# xgb+transfer: xgb warm-started (`texc tune --transfer`) with records of other shapes, never the
# space's own workload: for the x86 spaces the shipped records of bench/records/x86-t1.jsonl of the
# same kind (matmul_512 from G1, G3-G6, not G2 = 512^3; conv2d_c6 from C1-C12 but C6; depthwise_d3
# from D1-D9 but D3), for vdla_conv28_int8 the random runs of the vdla_conv14_int8 space (run first).
transfer_of() {  # FILE.jsonl PREFIX EXCLUDED_OP
  python3 -c 'import json, sys
for line in open(sys.argv[1]):
    op = json.loads(line)["op"]
    if op.startswith(sys.argv[2]) and op != sys.argv[3]: sys.stdout.write(line)' "$@"
}
mkdir -p "$out"
transfer_of "$root/bench/records/x86-t1.jsonl" G G2 >"$out/transfer_mm.jsonl"
transfer_of "$root/bench/records/x86-t1.jsonl" C C6 >"$out/transfer_conv.jsonl"
transfer_of "$root/bench/records/x86-t1.jsonl" D D3 >"$out/transfer_dw.jsonl"
for space in matmul_512:mm:x86:200:600 conv2d_c6:conv:x86:200:600 depthwise_d3:dw:x86:200:600 \
             vdla_conv14_int8:vdla:vdla:60:200 vdla_conv28_int8:vdla28:vdla:100:300; do
  IFS=: read -r file dir target trials random_trials <<<"$space"
  tuners="xgb,ga,random@$random_trials" transfer=()
  case $dir in
    vdla) ;;
    vdla28) tuners+=",xgb+transfer"; for f in "$out"/vdla/random.seed*.jsonl; do transfer+=(--transfer "$f"); done ;;
    *) tuners+=",xgb+transfer"; transfer=(--transfer "$out/transfer_$dir.jsonl") ;;
  esac
  "${pin[@]}" python3 "$root/tools/tune_compare.py" "$texc" "$root/bench/tune_spaces/$file.tex" --target "$target" \
    --trials "$trials" --seeds 3 --tuners "$tuners" "${transfer[@]}" --out "$out/$dir" --markdown
done
