#!/usr/bin/env bash
# The stdlib matmul's GPU memory-pipeline knobs measured on a CUDA device (issue 32): G1-G6 with the
# defaults and with each of MMG_DB (cp.async double buffering), MMG_PAD (storage_align of the A
# tile), both, and MMG_VEC=1 (scalar fills, the code before 128-bit fills), each `texc run --target
# cuda` (checked against the reference, median of --repeat CUDA-event timings); and the records of
# bench/records/cuda.jsonl (texc tune on a GPU), alone and with MMG_DB. Prints a markdown
# table of GFLOP/s; "FAIL" where the run failed its check, "—" where it did not run.
# usage: tools/device_gemm_sweep.sh TEXC [REPEAT=20] [WORKLOADS="G1 G2 G3 G4 G5 G6"]
#   TARGET=cuda-interp runs the same on the GPU's interpreter (a smoke test without a GPU: slow,
#   GFLOP/s meaningless)
set -u
texc=$1
repeat=${2:-20}
workloads=${3:-G1 G2 G3 G4 G5 G6}
root=$(cd "$(dirname "$0")/.." && pwd)
variants=("defaults|--no-records" "MMG_DB|--no-records --knob MMG_DB=true" "MMG_PAD|--no-records --knob MMG_PAD=true"
          "MMG_DB+MMG_PAD|--no-records --knob MMG_DB=true --knob MMG_PAD=true" "MMG_VEC=1|--no-records --knob MMG_VEC=1"
          "records|--records $root/bench/records/cuda.jsonl" "records+MMG_DB|--records $root/bench/records/cuda.jsonl --knob MMG_DB=true")
header="| workload |"
rule="|---|"
for v in "${variants[@]}"; do header+=" ${v%%|*} |"; rule+="---|"; done
echo "$header"
echo "$rule"
for w in $workloads; do
  row="| $w |"
  for v in "${variants[@]}"; do
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
