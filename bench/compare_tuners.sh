#!/usr/bin/env bash
# The tuner comparison of docs/tuning.md ("Comparison"), one command: xgb, the genetic algorithm
# and random search, 3 seeds each, on the spaces of bench/tune_spaces/ — a matmul, a conv2d and a
# depthwise convolution on x86 (1 thread) and two int8 convolutions on VDLA (simulated cycles) —
# each run into its own records file under OUT (default tune_compare/), then per space the trials
# each run needed to reach 95% of the best configuration any run found (tools/tune_compare.py,
# as measured and with pooled medians). Re-running resumes every run where it stopped.
#
#   bench/compare_tuners.sh [TEXC] [OUT]     # ~2 hours on one core; CPUS=1 pins it (taskset)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
texc=${1:-$root/build/tools/texc/texc}
out=${2:-tune_compare}
pin=()
[ -n "${CPUS:-}" ] && pin=(taskset -c "$CPUS")
export TEXC_NUM_THREADS=1
for space in matmul_512:mm:x86:200:600 conv2d_c6:conv:x86:200:600 depthwise_d3:dw:x86:200:600 \
             vdla_conv14_int8:vdla:vdla:60:200 vdla_conv28_int8:vdla28:vdla:100:300; do
  IFS=: read -r file dir target trials random_trials <<<"$space"
  "${pin[@]}" python3 "$root/tools/tune_compare.py" "$texc" "$root/bench/tune_spaces/$file.tex" --target "$target" \
    --trials "$trials" --seeds 3 --tuners "xgb,ga,random@$random_trials" --out "$out/$dir" --markdown
done
