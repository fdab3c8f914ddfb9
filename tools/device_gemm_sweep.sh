#!/usr/bin/env bash
# The stdlib matmul's GPU schedule knobs measured on a CUDA device (issue 32): G1-G6 with the
# defaults (cp.async double buffering and the padded A tile on), without double buffering, with
# warp tiling (MMG_WARP: the default 2 x 2 warps of 32 x 32; warps of 64 x 32 with 8 x 4 register
# tiles, a 128 x 64 block; warps of 64 x 64, a 128 x 128 block with a k tile of 16), the TF32
# tensor cores (MMG_TC=1, G5 with MMG_TBK=8) and the records of bench/records/cuda.jsonl (texc tune
# on a GPU), each `texc run --target cuda` (checked against the reference, median of --repeat
# CUDA-event timings). Prints a markdown table of GFLOP/s; "FAIL" where the run failed its check,
# "—" where it did not run.
# conv2d workloads (C1-C12) get their own table: the defaults (double-buffered), CVG_DB=false,
# CVG_RT (the register tile over several output points, double-buffered and not, wider, and with
# more channels per thread) and the records.
# usage: tools/device_gemm_sweep.sh TEXC [REPEAT=20] [WORKLOADS="G1 G2 G3 G4 G5 G6 C1 ... C12"]
#   TARGET=cuda-interp runs the same on the GPU's interpreter (a smoke test without a GPU: slow,
#   GFLOP/s meaningless)
set -u
texc=$1
repeat=${2:-20}
workloads=${3:-G1 G2 G3 G4 G5 G6 C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 C11 C12}
root=$(cd "$(dirname "$0")/.." && pwd)
gemm_variants=("defaults|--no-records" "MMG_DB=false|--no-records --knob MMG_DB=false"
               "MMG_WARP|--no-records --knob MMG_WARP=true"
               "MMG_WARP 128x64|--no-records --knob MMG_WARP=true --knob MMG_WTM=64 --knob MMG_TM=8"
               "MMG_WARP 128x128|--no-records --knob MMG_WARP=true --knob MMG_WTM=64 --knob MMG_WTN=64 --knob MMG_TM=8 --knob MMG_BK=16 --knob MMG_UK=false"
               "MMG_TC=1|--no-records --knob MMG_TC=1 --knob MMG_TBK=8"
               "records|--records $root/bench/records/cuda.jsonl")
conv_variants=("defaults|--no-records" "CVG_DB=false|--no-records --knob CVG_DB=false"
               "CVG_RT|--no-records --knob CVG_RT=true" "CVG_RT, CVG_DB=false|--no-records --knob CVG_RT=true --knob CVG_DB=false"
               "CVG_RT TX=8|--no-records --knob CVG_RT=true --knob CVG_TX=8 --knob CVG_RX=64"
               "CVG_RT TF=4|--no-records --knob CVG_RT=true --knob CVG_TF=4 --knob CVG_FB=32"
               "records|--records $root/bench/records/cuda.jsonl")

# table WORKLOADS VARIANTS...: one markdown table, a row per workload, a column per variant
table() {
  local ws=$1
  shift
  local header="| workload |" rule="|---|" v w
  for v in "$@"; do header+=" ${v%%|*} |"; rule+="---|"; done
  echo "$header"
  echo "$rule"
  for w in $ws; do
    local row="| $w |"
    for v in "$@"; do
      # shellcheck disable=SC2086
      out=$(timeout 120 "$texc" run "$root/bench/texc_workloads/$w.tex" --target "${TARGET:-cuda}" --repeat "$repeat" \
            --json ${v#*|} 2>/dev/null | tail -n 1)
      cell=$(python3 -c '
import json, sys
try:
    o = json.loads(sys.argv[1])
except ValueError:
    print("—"); sys.exit()
print("%.1f" % o["gflops"] if o.get("status") == "pass" else "FAIL")
' "$out")
      row+=" $cell |"
    done
    echo "$row"
  done
}

gemms=$(tr ' ' '\n' <<<"$workloads" | grep '^G' | tr '\n' ' ')
convs=$(tr ' ' '\n' <<<"$workloads" | grep '^C' | tr '\n' ' ')
[ -n "${gemms// /}" ] && table "$gemms" "${gemm_variants[@]}"
[ -n "${gemms// /}" ] && [ -n "${convs// /}" ] && echo
[ -n "${convs// /}" ] && table "$convs" "${conv_variants[@]}"
exit 0
